"""Steps for the world production runs in: real bytes, old shapes, late writes, transient entries, freshness.

Fixtures are written as cc-web writes them (``JSON.stringify`` in raw UTF-8, two-space or compact,
older shapes, sizes past 64 KiB with characters across read-chunk boundaries); the read-only checks
look again after a settle delay and watch for entries that exist only during a call (D-12); files
appear, are repaired and vanish between calls, and a file left unchanged for seconds is saved again (D-15).
"""

from __future__ import annotations

import os
import time

from ccweb_conformance.checks.failures import ConformanceFailure, fail
from ccweb_conformance.checks.ledger import SETTLE_S
from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import given, parse, then, when
from ccweb_conformance.fixtures.conversations import FILE_MODE, cc_web_session, one_message_session, session_bytes
from ccweb_conformance.fixtures.notation import code_points
from ccweb_conformance.suite.ageing import adopt_or_write, left_to_wait
from ccweb_conformance.suite.lookahead import AGED_STEP
from ccweb_conformance.suite.steps.given_steps import new_id, table_messages
from ccweb_conformance.suite.steps.then_steps import sessions_dir_unchanged
from ccweb_conformance.suite.world import World

BOUNDARIES = (4 * 1024, 16 * 1024, 64 * 1024)
"""Read-chunk sizes a reader may decode piece by piece: a character must straddle each."""
FILLER = "数据处理完成😀进度"
"""Assistant text of three- and four-byte characters that fills a large conversation."""
OLD_SHAPE_FIELDS = ("id", "created", "updated", "hasUnread")
"""What an old session file holds besides messages: no ``agent``, no ``title``."""


@given(parse('a conversation "{alias}" written compactly with the messages:'))
def compact_conversation(world: World, alias: str, datatable: list[list[str]]) -> None:
    """``JSON.stringify(session)`` with no indentation, raw UTF-8."""
    conversation_id = new_id(world, alias)
    session = cc_web_session(conversation_id, table_messages(datatable))
    world.files.write_session(conversation_id, session, compact=True)


@given(parse('a conversation "{alias}" in an old shape with the messages:'))
def old_shaped_conversation(world: World, alias: str, datatable: list[list[str]]) -> None:
    """A session saved by an older cc-web: no ``agent``, no ``title``, imported messages with null timestamps."""
    conversation_id = new_id(world, alias)
    imported = [{**message, "timestamp": None} for message in table_messages(datatable)]  # cc-web stored no time
    full = cc_web_session(conversation_id, imported)
    world.files.write_session(conversation_id, {name: full[name] for name in (*OLD_SHAPE_FIELDS, "messages")})


def straddling_session(conversation_id: str, size: int, newest: str) -> bytes:
    """A session of about ``size`` bytes whose bytes at every boundary of BOUNDARIES are inside a character."""
    repeats = max(1, size // len(FILLER.encode("utf-8")))
    for padding in range(8):
        messages = [
            {"role": "user", "content": "最早的输入 😀", "timestamp": "2026-11-30T09:00:00.000Z"},
            {"role": "assistant", "content": FILLER * repeats, "timestamp": None, "toolCalls": []},
            {"role": "user", "content": newest, "timestamp": "2026-11-30T09:30:00.000Z"},
        ]
        data = session_bytes(cc_web_session(conversation_id, messages, title="长会话" + "x" * padding))
        if all(len(data) > b and 0x80 <= data[b] <= 0xBF for b in BOUNDARIES):
            return data
    raise AssertionError(f"no padding puts a character across {BOUNDARIES} in {size} bytes")


@given(
    parse(
        'a conversation "{alias}" of {size:d} KiB with characters across the 4, 16 and 64 KiB boundaries'
        ' and the newest user message "{content}"'
    )
)
def straddling_conversation(world: World, alias: str, size: int, content: str) -> None:
    """Raw UTF-8 CJK and emoji past 64 KiB; a multi-byte character straddles each read-chunk boundary."""
    conversation_id = new_id(world, alias)
    world.files.write_bytes(conversation_id, straddling_session(conversation_id, size * 1024, code_points(content)))


@given(
    parse(
        'a folder "{folder}" whose name starts with two dots inside the sessions directory'
        ' holds conversation "{alias}" saying "{content}"'
    )
)
def dot_folder_inside(world: World, folder: str, alias: str, content: str) -> None:
    """``..<prefix>-<folder>/`` inside the sessions directory: in the tree, though its name starts ``..``."""
    path = world.files.make_folder(folder, lead="..")
    world.ids[folder] = path.name
    conversation_id = new_id(world, alias)
    world.files.write_in_folder(path, conversation_id, one_message_session(conversation_id, content))


ROOT_SKIP = (
    "not checked: the runner is root and the server is not one it starts over stdio, so no file it cannot "
    "read can be made (root ignores file modes); run as another user, or over stdio, to check it"
)


@given(parse('conversation "{alias}" cannot be read by the server'))
def conversation_without_permission(world: World, alias: str) -> None:
    """No read permission on the file (mode 000).

    Root reads any file whatever its mode, so a runner that is root calls, for this scenario, servers of
    its own started without that power (``Target.without_permission_override``: Linux capabilities, stdio).
    Where it cannot (a server over HTTP or already running), the scenario is skipped, never passed, and the
    skip says which check was not made.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        unprivileged = world.target.without_permission_override()
        if unprivileged is None:
            raise StepSkipped(ROOT_SKIP)
        world.target = unprivileged
    conversation_id = world.ids[alias]
    world.files.chmod(conversation_id, 0)
    world.cleanups.append(lambda: world.files.chmod(conversation_id, FILE_MODE))


@when(parse('conversation "{alias}" is saved with the user message "{content}"'))
def conversation_saved(world: World, alias: str, content: str) -> None:
    """Create the file of a conversation that had none."""
    conversation_id = world.ids[alias]
    world.files.write_session(conversation_id, one_message_session(conversation_id, content))


@when(parse('conversation "{alias}" is repaired with the user message "{content}"'))
def conversation_repaired(world: World, alias: str, content: str) -> None:
    """Rewrite an unreadable file in place as a valid session."""
    conversation_id = world.ids[alias]
    world.files.rewrite(conversation_id, session_bytes(one_message_session(conversation_id, content)))


@when(parse('conversation "{alias}" is deleted'))
def conversation_deleted(world: World, alias: str) -> None:
    """Remove the conversation's file."""
    world.files.delete(world.ids[alias])


@given("the sessions directory is watched")
def watch_entries(world: World) -> None:
    """Watch every entry created, changed or removed from now on (inotify on Linux)."""
    from ccweb_conformance.checks.watch import EntryWatch  # noqa: PLC0415 - starts a thread: only when used

    watch = EntryWatch(world.target.sessions_dir)
    world.cleanups.append(watch.close)
    world.entry_watch = watch


@then("no entry came and went in the sessions directory during the calls")
def no_transient_entries(world: World) -> None:
    """RO-2: no lock, temporary or cache file, even one that lived only during a call."""
    watch = world.entry_watch
    if watch is None:
        raise AssertionError('the scenario did not say "the sessions directory is watched"')
    ledger = world.ledger
    if ledger is None:
        found = watch.foreign(set())
    else:  # in a directory not the runner's, only entries named after its IDs are its to judge
        found = [seen for seen in watch.foreign(ledger.expected()) if ledger.judged(seen.name)]
    if found:
        raise fail(
            f"RO-2: entries were created, changed or removed in the sessions directory during the calls "
            f"(seen through {watch.method})",
            expected="no entry but the runner's own, not even one that exists only during a call",
            actual=[seen.phrase for seen in found],  # worded by the reports, in their language
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="RO-2",
        )


@then("the sessions directory is still unchanged after a settle delay")
def unchanged_after_settle(world: World) -> None:
    """RO-1, RO-2: the same check again once a write landing up to SETTLE_S after the last call has landed."""
    with world.context.waits.waited("settle"):
        time.sleep(SETTLE_S)
    try:
        sessions_dir_unchanged(world)
    except ConformanceFailure as failure:
        failure.what = f"RO-1: {int(SETTLE_S * 1000)} ms after the last call, {failure.what}"
        failure.args = (f"RO-1: {int(SETTLE_S * 1000)} ms after the last call, {failure.args[0]}",)
        raise


@given(AGED_STEP)
def a_conversation_unchanged_for(world: World, alias: str, content: str, seconds: int) -> None:
    """A one-message conversation whose last change (modification and change time) is ``seconds`` old when the
    step ends: the file the run wrote when it started is adopted, else it is written now (``suite/ageing.py``);
    only what is left of the age is waited for."""
    conversation_id = world.ids[alias] = adopt_or_write(world.files, alias, content)
    info = world.files.times(conversation_id)
    wait = left_to_wait(info.st_mtime_ns, info.st_ctime_ns, seconds, time.time_ns())
    if wait > 0:
        with world.context.waits.waited("real age"):
            time.sleep(wait)
