"""Given steps: conversations on disk and the source binding."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import given, parse, regex
from ccweb_conformance.fixtures.conversations import cc_web_session, one_message_session, session_bytes
from ccweb_conformance.fixtures.notation import aliases, byte_string, code_points, numbered
from ccweb_conformance.suite.world import World, audit_sessions_dir, snapshot

MESSAGE_COLUMNS = ("role", "content", "timestamp", "createdAt", "id")


def new_id(world: World, alias: str) -> str:
    """A new conversation ID for ``alias`` in the scenario (no file written)."""
    world.ids[alias] = world.files.new_id(alias)
    return world.ids[alias]


def table_messages(datatable: list[list[str]]) -> list[dict[str, Any]]:
    """The messages a table's rows spell (a header of :data:`MESSAGE_COLUMNS`), in the features' notation."""
    header, *rows = datatable
    unknown = set(header) - set(MESSAGE_COLUMNS)
    if unknown:
        raise ValueError(f"unknown message columns {sorted(unknown)}; use {MESSAGE_COLUMNS}")
    return [{name: code_points(value) for name, value in zip(header, row, strict=True)} for row in rows]


@given(parse('a conversation "{alias}" with the messages:'))
def a_conversation_with_messages(world: World, alias: str, datatable: list[list[str]]) -> None:
    """A cc-web session whose messages are the table rows."""
    conversation_id = new_id(world, alias)
    world.files.write_session(conversation_id, cc_web_session(conversation_id, table_messages(datatable)))


@given(parse('a conversation "{alias}" with {count:d} user messages "{first}" to "{last}"'))
def a_conversation_with_numbered_messages(world: World, alias: str, count: int, first: str, last: str) -> None:
    """User messages "<prefix>1" .. "<prefix>N", each followed by an assistant reply."""
    contents = numbered(first, last)
    if len(contents) != count:
        raise ValueError(f'"{first}" to "{last}" is not {count} messages')
    messages: list[dict[str, Any]] = []
    for n, content in enumerate(contents, start=1):
        messages.append({"role": "user", "content": content, "timestamp": f"2026-11-30T09:{n % 60:02d}:00.000Z"})
        messages.append({"role": "assistant", "content": f"reply {n}", "timestamp": None, "toolCalls": []})
    conversation_id = new_id(world, alias)
    world.files.write_session(conversation_id, cc_web_session(conversation_id, messages))


@given(parse('a conversation "{alias}" with a user message of {count:d} "{char}"'))
def a_conversation_with_one_long_message(world: World, alias: str, count: int, char: str) -> None:
    """One user message made of ``count`` copies of a character."""
    conversation_id = new_id(world, alias)
    world.files.write_session(conversation_id, one_message_session(conversation_id, code_points(char) * count))


@given(parse('a conversation "{alias}" whose file is:'))
def a_conversation_whose_file_is(world: World, alias: str, docstring: str) -> None:
    """A conversation file with exactly this JSON text (after placeholders)."""
    world.files.write_bytes(new_id(world, alias), aliases(docstring, world.ids).encode("utf-8"))


@given(regex(r'conversation "(?P<alias>\w+)" is stored as the bytes "(?P<data>.*)"'))
def conversation_stored_as_bytes(world: World, alias: str, data: str) -> None:
    """A conversation file with exactly these bytes (Python escapes)."""
    world.files.write_bytes(new_id(world, alias), byte_string(data))


@given(parse('no conversation "{alias}" exists'))
def no_conversation(world: World, alias: str) -> None:
    """Reserve an ID that has no file."""
    new_id(world, alias)


@given(parse('conversation "{alias}" is a directory'))
def conversation_is_a_directory(world: World, alias: str) -> None:
    """A directory named ``<id>.json``."""
    world.files.make_directory(new_id(world, alias))


@given(parse('conversation "{alias}" is a named pipe'))
def conversation_is_a_named_pipe(world: World, alias: str) -> None:
    """A named pipe (FIFO) named ``<id>.json``, with no writer: a reader that opens it blocking waits forever."""
    world.files.make_fifo(new_id(world, alias))


@given(parse('conversation "{alias}" is a symbolic link to conversation "{other}"'))
def conversation_link_inside(world: World, alias: str, other: str) -> None:
    """A link that stays inside the sessions directory."""
    target = world.files.path_of(world.ids[other])
    world.files.make_link(new_id(world, alias), target)


@given(parse('conversation "{alias}" is a symbolic link to a conversation file outside the sessions directory'))
def conversation_link_outside(world: World, alias: str) -> None:
    """A link to a valid conversation file that lies outside the sessions directory."""
    conversation_id = new_id(world, alias)
    outside = world.files.outside_file(one_message_session(conversation_id, "secret from outside"))
    world.files.make_link(conversation_id, outside)


@given(
    parse('a folder "{folder}" inside the sessions directory holds conversation "{alias}" saying "{content}"')
)
def folder_inside(world: World, folder: str, alias: str, content: str) -> None:
    """A subfolder of the sessions directory (under this run's prefix) with one conversation file."""
    path = world.files.make_folder(folder)
    world.ids[folder] = path.name
    conversation_id = new_id(world, alias)
    world.files.write_in_folder(path, conversation_id, one_message_session(conversation_id, content))


@given(
    parse(
        'a folder "{folder}" beside the sessions directory, named like it,'
        ' holds conversation "{alias}" saying "{content}"'
    )
)
def folder_beside(world: World, folder: str, alias: str, content: str) -> None:
    """``<sessions>-<folder>-<prefix>/`` beside the sessions directory: outside it, though its name starts the same."""
    try:
        path = world.files.sibling_folder(folder)
    except OSError as error:
        raise StepSkipped(
            f"cannot create a folder beside the sessions directory ({error.strerror}: {error.filename}); "
            "this scenario needs the sessions directory's parent to be writable"
        ) from None
    world.ids[folder] = path.name
    world.ids[f"{folder}Path"] = str(path)
    conversation_id = new_id(world, alias)
    world.files.write_in_folder(path, conversation_id, one_message_session(conversation_id, content))


@given(regex(r'conversation "(?P<alias>\w+)" is a symbolic link to "(?P<text>.*)"'))
def conversation_link_text(world: World, alias: str, text: str) -> None:
    """A link ``<id>.json`` whose target is exactly ``text``; ``{sessions}`` is the sessions folder's own name.

    The link's own alias is known in ``text`` too, so that a link can point at itself (a loop).
    """
    conversation_id = new_id(world, alias)
    names = {**world.ids, "sessions": Path(os.path.realpath(world.target.sessions_dir)).name}
    world.files.make_link_text(conversation_id, aliases(text, names))


@given(parse('conversation "{alias}" is marked unread'))
def conversation_marked_unread(world: World, alias: str) -> None:
    """Set ``hasUnread`` in the stored file, as cc-web does for unseen replies."""
    conversation_id = world.ids[alias]
    session = json.loads(world.files.read(conversation_id))
    session["hasUnread"] = True
    world.files.rewrite(conversation_id, session_bytes(session))


@given(parse('conversation "{alias}" has a running-state folder'))
def conversation_run_folder(world: World, alias: str) -> None:
    """cc-web's ``<id>-run/`` folder beside the session file."""
    world.files.make_run_folder(world.ids[alias])


@given("a snapshot of the sessions directory")
def a_snapshot(world: World) -> None:
    """Remember every name and our files' bytes, sizes and times, after auditing the whole directory (RO-2)."""
    audit_sessions_dir(world, "before the snapshot")
    world.saved_snapshot = snapshot(world.target.sessions_dir, world.files.created())


@given(parse('the source conversation is "{alias}"'))
def source_is(world: World, alias: str) -> None:
    """Bind the source conversation to a conversation of this scenario."""
    world.source = world.ids[alias]


@given(regex(r'the source conversation is the raw value "(?P<raw>.*)"'))
def source_is_raw(world: World, raw: str) -> None:
    """Bind the source conversation to a raw, uncleaned value."""
    world.source = aliases(code_points(raw), world.ids)


@given("the source conversation is bound to another valid conversation")
def source_is_decoy(world: World, ccweb_decoy_id: str) -> None:
    """Bind the run's shared decoy conversation: a valid source the call must not fall back to."""
    world.source = ccweb_decoy_id


@given("no source conversation is bound")
def no_source(world: World) -> None:
    """No source binding at all: neither the variable nor the header (ccweb_spec.binding())."""
    world.source = None


@given(parse('conversation "{alias}" was last saved {hours:d} hours ago'))
def conversation_last_saved(world: World, alias: str, hours: int) -> None:
    """Age the file (its modification time ``hours`` in the past), as a real user's conversations are aged."""
    world.files.age(world.ids[alias], hours * 3600)
