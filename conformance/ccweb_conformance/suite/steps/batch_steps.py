"""Steps for one conversation per table row, every row's call in flight together.

A server must keep re-reading an unreadable file for at least 200 ms before it answers
``conversation_unreadable`` (D-14). Calls that only wait out that window are independent: made
one after the other, twenty files cost four seconds of every run. Made together (pipelined on
one connection per era, both eras at once) they cost one window, and nothing a check proves
changes: each answer is still judged on its own, against its own file, and named by its row.
"""

from __future__ import annotations

from ccweb_conformance.checks.attribution import wrong_error
from ccweb_conformance.checks.outcome import ToolOutcome
from ccweb_conformance.engine.registry import given, parse, then, when
from ccweb_conformance.fixtures.notation import byte_string
from ccweb_conformance.suite.world import World


def _rows(datatable: list[list[str]], column: str) -> list[str]:
    header, *rows = datatable
    if header != [column] or not rows:
        raise ValueError(f"expected a table with the one column {column!r} and at least one row, got {header}")
    return [row[0] for row in rows]


def _add_row(world: World, number: int, shown: str) -> str:
    alias = f"row{number}"
    world.ids[alias] = world.files.new_id(alias)
    world.rows.append((alias, shown))
    return world.ids[alias]


@given("one conversation per row, each stored as the bytes of its row:")
def one_conversation_per_row_of_bytes(world: World, datatable: list[list[str]]) -> None:
    """One conversation file per row, holding exactly the row's bytes (Python escapes)."""
    for number, data in enumerate(_rows(datatable, "bytes"), start=1):
        world.files.write_bytes(_add_row(world, number, data), byte_string(data))


@given("one conversation per row, each a file whose messages field is the row's JSON:")
def one_conversation_per_row_of_messages(world: World, datatable: list[list[str]]) -> None:
    """One conversation file per row: ``{"id": ..., "messages": <the row>}``."""
    for number, messages in enumerate(_rows(datatable, "messages"), start=1):
        conversation_id = _add_row(world, number, messages)
        world.files.write_bytes(conversation_id, f'{{"id": "{conversation_id}", "messages": {messages}}}'.encode())


@when("I call the tool for each of them, the calls in flight together")
def call_each_row_together(world: World) -> None:
    """One call per row naming its conversation, all in flight together in every era."""
    if not world.rows:
        raise AssertionError("the scenario made no conversation per row before this step")
    world.together = world.call_together([{"conversationId": world.ids[alias]} for alias, _ in world.rows])
    world.outcomes.extend(world.together[0])


@then(parse('every answer has the error code "{code}"'))
def every_answer_has_the_error_code(world: World, code: str) -> None:
    """Each row's answer, in every era, is an error result (isError true) with this code."""
    if not world.together:
        raise AssertionError("the scenario made no call per row before this step")
    wrong: list[tuple[int, str, ToolOutcome]] = []
    for outcomes in world.together:
        for number, ((_, shown), outcome) in enumerate(zip(world.rows, outcomes, strict=True), start=1):
            if outcome.error_mismatch(code) is not None:
                wrong.append((number, shown, outcome))
    if not wrong:
        return
    number, shown, outcome = wrong[0]
    rows = ", ".join(str(n) for n in dict.fromkeys(n for n, _, _ in wrong))
    if outcome.result.get("ok") is False and not outcome.is_error:
        raise wrong_error(
            f"an error result must set isError: true (ERR-1); rows {rows} did not (row {number}: \"{shown}\")",
            outcome, code, "flag",
        )
    raise wrong_error(
        f"expected the error {code} for every row; rows {rows} were answered otherwise (row {number}: \"{shown}\")",
        outcome, code, "code",
    )
