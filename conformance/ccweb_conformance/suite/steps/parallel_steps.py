"""Steps for calls in flight at once (D-15, CON-1): several sources together, pipelined calls, a changing header.

Each step runs in every era the run tests (D-16), the ``initialize`` era on connections of its
own: the agents of both eras all at once, the other steps era by era. Every answer is kept with
the conversation its request named (``World.asked``), and the Then step checks each against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from ccweb_conformance.checks.failures import fail
from ccweb_conformance.checks.outcome import ToolOutcome
from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import given, parse, regex, then, when
from ccweb_conformance.fixtures.conversations import one_message_session
from ccweb_conformance.suite.steps.given_steps import new_id
from ccweb_conformance.suite.world import TOOL_NAME, World
from ccweb_conformance.transport.client import OMIT, McpClient
from ccweb_conformance.transport.parallel import overlapping, pipelined

_QUOTED = re.compile(r'"(\w+)"')


def _era_clients(world: World) -> list[Callable[[str | None], McpClient]]:
    """How to get a client per source binding, for each era the run tests."""
    eras: list[Callable[[str | None], McpClient]] = [partial(world.target.client, lane=world.lane)]
    if world.target.other_era is not None:
        eras.append(partial(world.target.other_client, lane=world.lane))
    return eras


def _read(world: World, client: McpClient, arguments: object, asked: str) -> ToolOutcome:
    """One call on ``client``, recorded, its answer kept with the conversation it asked for."""
    outcome = world.outcome_of(world.record(client.call_tool(TOOL_NAME, arguments)))
    world.asked.append((asked, outcome))
    return outcome


@given(regex(r"the conversations (?P<names>.+) each hold one user message, their own name"))
def conversations_named(world: World, names: str) -> None:
    """One conversation per quoted alias, whose one user message is the alias itself."""
    for alias in _QUOTED.findall(names):
        conversation_id = new_id(world, alias)
        world.files.write_session(conversation_id, one_message_session(conversation_id, alias))


@when(parse("each of them is the source of an agent calling the tool {count:d} times, all agents at once"))
def agents_at_once(world: World, count: int) -> None:
    """One connection per source and era; every agent's calls run on a thread of its own, all released together
    (the agents of both eras the server speaks at once)."""
    aliases = list(world.ids)
    world.target.prepare([world.ids[a] for a in aliases])  # stdio: start the processes side by side
    agents = [(alias, client_for(world.ids[alias])) for client_for in _era_clients(world) for alias in aliases]

    def agent(alias: str, client: McpClient) -> None:
        for _ in range(count):
            _read(world, client, OMIT, alias)

    overlapping([partial(agent, alias, client) for alias, client in agents])


@when(parse("I send {count:d} calls on one connection before reading any answer, naming them in turn"))
def pipelined_calls(world: World, count: int) -> None:
    """Calls with explicit conversationIds cycling through the conversations, all in flight on one connection."""
    aliases = list(world.ids)
    asked = [aliases[n % len(aliases)] for n in range(count)]
    for client_for in _era_clients(world):
        exchanges = pipelined(client_for(None), TOOL_NAME, [{"conversationId": world.ids[a]} for a in asked])
        for alias, exchange in zip(asked, exchanges, strict=True):
            world.asked.append((alias, world.outcome_of(world.record(exchange))))


@when(regex(r"on one HTTP session I call the tool while the source header names (?P<names>.+) in turn"))
def header_changes(world: World, names: str) -> None:
    """One connection (one legacy session); its source header is changed before each call."""
    order = _QUOTED.findall(names)
    if world.target.transport != "http":  # before a client is made: over stdio that would start two processes
        raise StepSkipped("a source header exists over HTTP only")
    from ccweb_conformance.transport.httpchannel import HttpChannel  # noqa: PLC0415 (httpx: HTTP runs only)

    for client_for in _era_clients(world):
        client = client_for(world.ids[order[0]])
        channel = client.channel
        if not isinstance(channel, HttpChannel):
            raise StepSkipped("a source header exists over HTTP only")
        header = world.target.source_header  # type: ignore[attr-defined]
        for alias in order:
            channel.set_header(header, world.ids[alias])
            _read(world, client, OMIT, alias)
        channel.set_header(header, world.ids[order[0]])  # the pooled client keeps its own binding


@then("every answer is the conversation its request named")
def every_answer_is_its_own(world: World) -> None:
    """Each answer reads the conversation its request named (its source, or its conversationId), nothing else."""
    if not world.asked:
        raise AssertionError("the scenario made no call before this step")
    wrong = []
    for number, (alias, outcome) in enumerate(world.asked, start=1):
        items = outcome.result.get("items")
        contents = (
            [item.get("content") for item in items if isinstance(item, dict)] if isinstance(items, list) else None
        )
        if outcome.is_error or outcome.result.get("conversationId") != world.ids[alias] or contents != [alias]:
            wrong.append((number, alias, outcome))
    if wrong:
        number, alias, outcome = wrong[0]
        raise fail(
            f"CON-1: {len(wrong)} of {len(world.asked)} calls got the answer for another request "
            f"(call {number} asked for {alias!r}); each request's own source and arguments must decide its answer",
            expected={"conversationId": world.ids[alias], "item contents": [alias]},
            actual=outcome.result,
            exchange=outcome.exchange,
            proves="CON-1",
        )
