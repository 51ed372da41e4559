"""When steps: what the runner sends."""

from __future__ import annotations

import json
from typing import Any

from ccweb_conformance.engine.registry import parse, regex, when
from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.fixtures.conversations import session_bytes
from ccweb_conformance.fixtures.notation import aliases
from ccweb_conformance.suite.world import TOOL_NAME, World
from ccweb_conformance.transport.client import OMIT

RAW_TEXT_WAIT_S = 0.5
"""How long to wait for an (optional) JSON-RPC parse-error reply to raw text over HTTP (the POST's own answer)."""
RAW_TEXT_QUIET_S = 0.1
"""The same over a stream (stdio): silence is waited for in full, and a reply later than this is still read and
checked, as a late answer, with the next call (its id must be the one the raw text calls for)."""


def _arguments(world: World, docstring: str) -> Any:
    text = aliases(docstring, world.ids)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ValueError(f"the arguments of this step are not JSON: {text!r} ({exc})") from None


@when("I list the tools")
def list_tools(world: World) -> None:
    """tools/list, every page (the runner follows nextCursor, D-16), in every era the server speaks."""
    listing = world.list_tools()
    world.tool_listing, world.tools_exchange = listing, listing.exchanges[-1]


@when("I call the tool with arguments:")
def call_with_arguments(world: World, docstring: str) -> None:
    """tools/call with these arguments, sent exactly as written."""
    world.call_and_read(_arguments(world, docstring))


@when("I call the tool with no arguments")
def call_with_no_arguments(world: World) -> None:
    """tools/call with ``arguments: {}``."""
    world.call_and_read({})


@when("I call the tool without an arguments field")
def call_without_arguments_field(world: World) -> None:
    """tools/call whose params have no ``arguments`` member."""
    world.call_and_read(OMIT)


@when(regex(r"I call the tool with the arguments value (?P<value>.+)"))
def call_with_arguments_value(world: World, value: str) -> None:
    """tools/call whose ``arguments`` is exactly this JSON value (an object or not); the reply is kept unread."""
    world.call(_arguments(world, value))


@when(parse("I call the tool {count:d} times with arguments:"))
def call_n_times(world: World, count: int, docstring: str) -> None:
    """The same call, repeated."""
    for _ in range(count):
        world.call_and_read(_arguments(world, docstring))


@when(parse('I call the tool with a conversationId of {count:d} characters "{char}"'))
def call_with_long_id(world: World, count: int, char: str) -> None:
    """An ID longer than any file name the file system allows."""
    world.call_and_read({"conversationId": char * count})


@when(parse('I send the request "{method}" with no params'))
def send_request_without_params(world: World, method: str) -> None:
    """A request in the negotiated era's envelope (headers and ``_meta`` included); its answer is judged by the
    checks on every message received (PROTO-1)."""
    world.record(world.client().request(method))


@when(parse('I call the tool named "{name}" with no arguments'))
def call_named_tool(world: World, name: str) -> None:
    """tools/call of another tool name; the reply is kept unread."""
    world.call({}, name=name)


@when(regex(r'I send the raw text "(?P<text>.*)"'))
def send_raw_text(world: World, text: str) -> None:
    """A message that is not JSON-RPC at all."""
    wait = RAW_TEXT_WAIT_S if world.target.transport == "http" else RAW_TEXT_QUIET_S
    exchange = world.client().send_text(text, timeout=wait)
    if exchange.response is None:  # no answer: the whole quiet time was waited for
        world.context.waits.record("raw-text quiet", wait)
    world.record(exchange)


@when(parse("I send a tools/call request of {size:d} KiB"))
def send_large_request(world: World, size: int) -> None:
    """One tools/call line of ``size`` KiB (its conversationId fills it): any answer, a JSON-RPC error or an HTTP
    refusal will do; what the scenario judges is that the server is still serving afterwards (PROTO-2)."""
    def request(conversation_id: str) -> str:
        params = {"name": TOOL_NAME, "arguments": {"conversationId": conversation_id}}
        return json.dumps({"jsonrpc": "2.0", "id": "large-1", "method": "tools/call", "params": params})

    text = request("a" * max(0, size * 1024 - len(request(""))))
    try:
        exchange = world.client().send_text(text, timeout=RAW_TEXT_WAIT_S)
    except ProtocolFailure as refusal:  # an HTTP server may refuse a body that large (413): a refusal is an answer
        refused = refusal.exchange
        if refusal.kind != "http" or refused is None or not 400 <= (refused.http_status or 0) < 500:
            raise
        exchange = refused
    if exchange.response is None and exchange.http_status is None:
        world.context.waits.record("raw-text quiet", RAW_TEXT_WAIT_S)
    world.record(exchange)


def _with_message(world: World, conversation_id: str, content: str) -> bytes:
    session = json.loads(world.files.read(conversation_id))
    session["messages"].append({"role": "user", "content": content, "timestamp": "2026-11-30T10:00:00.000Z"})
    return session_bytes(session)


@when(parse('conversation "{alias}" gains the user message "{content}"'))
@when(parse('conversation "{alias}" is saved in place with the user message "{content}"'))
def conversation_gains_message(world: World, alias: str, content: str) -> None:
    """Append a user message to the stored file, in place (truncate and write, as cc-web saves: the same inode)."""
    conversation_id = world.ids[alias]
    world.files.rewrite(conversation_id, _with_message(world, conversation_id, content))


@when(parse('conversation "{alias}" is saved by rename with the user message "{content}"'))
def conversation_saved_by_rename(world: World, alias: str, content: str) -> None:
    """Append a user message by an atomic save: a temporary file, renamed over the old one (a new inode)."""
    conversation_id = world.ids[alias]
    world.files.save_by_rename(conversation_id, _with_message(world, conversation_id, content))


@when(
    parse('conversation "{alias}" is rewritten in place with "{new}", keeping its size and modification time')
)
def conversation_rewritten_same_size(world: World, alias: str, new: str) -> None:
    """Replace the only message's content with one of the same length; restore mtime."""
    conversation_id = world.ids[alias]
    before = world.files.times(conversation_id)
    session = json.loads(world.files.read(conversation_id))
    old = session["messages"][0]["content"]
    if len(old) != len(new):
        raise ValueError(f"{new!r} must have the length of {old!r}")
    session["messages"][0]["content"] = new
    world.files.rewrite(conversation_id, session_bytes(session))
    world.files.set_times(conversation_id, (before.st_atime_ns, before.st_mtime_ns))
