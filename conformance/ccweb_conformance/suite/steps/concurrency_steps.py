"""Steps for calls made while cc-web saves the conversation non-atomically (D-14, STO-5).

The saves are made by :class:`~ccweb_conformance.fixtures.torn_writer.NonAtomicRewriter` on a thread
of the runner: truncate, then write the same bytes, then pause. Whatever the implementation
answers during them must be the answer for those bytes or ``conversation_unreadable``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ccweb_conformance.checks.failures import fail
from ccweb_conformance.checks.outcome import ToolOutcome
from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import given, parse, then, when
from ccweb_conformance.fixtures.conversations import cc_web_session
from ccweb_conformance.fixtures.held_dir import OwnEntry
from ccweb_conformance.fixtures.notation import aliases
from ccweb_conformance.fixtures.torn_writer import NonAtomicRewriter, TornSave
from ccweb_conformance.suite.world import World

FILLER = "keep the public API stable and run the whole suite again before you sign off; 用户 要求 测试 😀 "


def _earlier_pair(number: int) -> list[dict[str, Any]]:
    """An earlier user input and the assistant's reply to it, with a tool call."""
    user = {"role": "user", "content": f"earlier input {number}: {FILLER}", "timestamp": None}
    call = {"name": "Bash", "input": {"command": FILLER}, "result": FILLER * 3}
    reply = {"role": "assistant", "content": FILLER * 2, "timestamp": None, "toolCalls": [call]}
    return [user, reply]


@given(parse('a conversation "{alias}" of about {size:d} KB whose newest user message is "{content}"'))
def a_large_conversation(world: World, alias: str, size: int, content: str) -> None:
    """Older user and assistant messages (the assistant's with tool calls) up to ``size`` KB, then ``content``."""
    conversation_id = world.files.new_id(alias)
    world.ids[alias] = conversation_id
    messages: list[dict[str, Any]] = []
    # A pair's indented JSON differs from pair 0's only in the digits of its number.
    pair_bytes = len(json.dumps(_earlier_pair(0), indent=2, ensure_ascii=False).encode()) - 1
    written = 0
    while written < size * 1024:
        number = len(messages) // 2
        messages += _earlier_pair(number)
        written += pair_bytes + len(str(number))
    messages.append({"role": "user", "content": content, "timestamp": None})
    world.files.write_session(conversation_id, cc_web_session(conversation_id, messages))


def _saved(world: World, alias: str, docstring: str) -> tuple[Any, OwnEntry, bytes]:
    """The calls' arguments, and the conversation the runner will save during them: its entry and its bytes. Each
    era's answers are checked on their own from now on: a save may land between them."""
    arguments = json.loads(aliases(docstring, world.ids))
    data = world.files.read(world.ids[alias])
    world.eras_answer_alike = False
    return arguments, world.files.own(world.ids[alias]), data


@when(
    parse(
        'I call the tool {count:d} times while conversation "{alias}" is saved non-atomically '
        "every {pause:d} ms, with arguments:"
    )
)
def call_during_saves(world: World, count: int, alias: str, pause: int, docstring: str) -> None:
    """``count`` calls, one after the other, while another thread keeps saving the file."""
    arguments, entry, data = _saved(world, alias, docstring)
    with world.context.waits.waited("non-atomic saves"), NonAtomicRewriter(entry, data, pause / 1000):
        for _ in range(count):
            world.call_and_read(arguments)


REREAD_WINDOW_S = 0.2
"""D-14: a conforming implementation keeps re-reading for at least this long."""
ON_TIME_S = 0.15
"""A save the runner completed later than this (its own machine was slow) is not judged: the call is made again."""
LATE_RETRIES = 8
ATTEMPTS = 1 + LATE_RETRIES + 1
"""A call's attempts: the first, the retries of a late save, and the confirmation of an unreadable answer."""
LATE_PAUSE_S = 0.1
"""After the n-th late save the runner waits n times this (at most LATE_PAUSE_MAX_S) before the next: a burst of
load on its machine passes rather than making every retry late too."""
LATE_PAUSE_MAX_S = 0.5


@when(
    parse(
        'I call the tool {count:d} times, each during a non-atomic save of conversation "{alias}" '
        "that completes {delay:d} ms after it began, with arguments:"
    )
)
def call_during_held_saves(world: World, count: int, alias: str, delay: int, docstring: str) -> None:
    """Each call is sent while a save is torn; the runner completes it ``delay`` ms later (D-14).

    A call whose save the runner itself completed late (after ON_TIME_S, well inside the 200 ms
    window) is made again, at most LATE_RETRIES times, so the machine's load never decides. Both eras'
    calls are in flight during the same save; each era's answers are judged on their own (a late save may
    be unreadable in one era only), and a late attempt's answers are dropped in both. An on-time answer
    of conversation_unreadable is confirmed once by the same call during a fresh save: a machine that
    stalled the server's re-reads for one call is not a server that never re-reads (one without re-reads
    is unreadable every time; a passing server warned twice in variant runs of the kit's loaded test loop).
    """
    arguments, entry, data = _saved(world, alias, docstring)
    with world.context.waits.waited("non-atomic saves"):
        _held_saves(world, count, entry, data, delay=delay, arguments=arguments)


def _held_saves(world: World, count: int, entry: OwnEntry, data: bytes, *, delay: int, arguments: Any) -> None:
    for _ in range(count):
        world.held_calls += 1
        confirming = False
        late = 0
        for _attempt in range(ATTEMPTS):
            kept = len(world.other_era_outcomes)
            with TornSave(entry, data, delay / 1000) as save:
                world.call_and_read(arguments)
            on_time = save.completed_after_s is not None and save.completed_after_s <= ON_TIME_S
            unreadable = any(map(_unreadable, [world.outcomes[-1], *world.other_era_outcomes[kept:]]))
            if on_time and (confirming or not unreadable):
                break
            confirming = confirming or on_time  # an unreadable answer is confirmed once, in a fresh save
            world.outcomes.pop()  # the runner was late, or the answer is to be confirmed: it says nothing yet
            del world.other_era_outcomes[kept:]
            if not on_time:
                late += 1
                time.sleep(min(LATE_PAUSE_S * late, LATE_PAUSE_MAX_S))
        else:  # every attempt's save was late: this call says nothing, and the scenario cannot pass on it
            world.unjudged_calls += 1


def _unreadable(outcome: ToolOutcome) -> bool:
    error = outcome.result.get("error")
    return outcome.is_error and isinstance(error, dict) and error.get("code") == "conversation_unreadable"


@then(parse('every answer has the item contents "{content}" or the error code "conversation_unreadable"'))
def every_answer_is_the_result_or_unreadable(world: World, content: str) -> None:
    """Only the saved conversation's answer (one item, ``content``) or conversation_unreadable, in every era."""
    for number, outcome in enumerate([*world.outcomes, *world.other_era_outcomes], start=1):
        if _unreadable(outcome):
            continue
        items = outcome.result.get("items")
        contents = [item.get("content") for item in items] if isinstance(items, list) else None
        if outcome.is_error or outcome.result.get("ok") is not True or contents != [content]:
            raise fail(
                f"call {number} of {len(world.outcomes)} during the saves gave a wrong answer",
                expected=f'a success with the one item "{content}", or conversation_unreadable',
                actual=outcome.result,
                exchange=outcome.exchange,
            )


@then(parse('none of the answers has the error code "conversation_unreadable"'))
def no_answer_is_unreadable(world: World) -> None:
    """Saves that complete within the window are never answered unreadable: the implementation reads again
    (STO-5); in every era tested."""
    answers = [*world.outcomes, *world.other_era_outcomes]
    unreadable = sum(_unreadable(outcome) for outcome in answers)
    if unreadable:
        first = next(outcome for outcome in answers if _unreadable(outcome))
        raise fail(
            f"{unreadable} of {len(answers)} calls during saves that the runner completed within "
            f"{ON_TIME_S * 1000:.0f} ms were conversation_unreadable; keep reading again for at least "
            f"{REREAD_WINDOW_S * 1000:.0f} ms when a read does not parse or the file changed during it (D-14)",
            expected="no conversation_unreadable",
            actual=unreadable,
            exchange=first.exchange,
            proves="STO-5",
        )
    if world.unjudged_calls:
        raise StepSkipped(
            f"not judged: {world.unjudged_calls} of the {world.held_calls} calls had every one of their"
            f" {ATTEMPTS} saves completed late (after {ON_TIME_S * 1000:.0f} ms): the runner's machine was too busy"
            " to hold a save for a set time (D-14)"
        )
