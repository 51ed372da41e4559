"""Conversations that really age: written when the run starts, adopted by the scenario that asked for them.

A cache that trusts a file once its last change is a few seconds old is caught only by a file whose
modification time *and* change time are old; the change time cannot be set back, so the file must be
left alone for real. The run writes each such file when its target starts, under the IDs its scenario
will get (:func:`~ccweb_conformance.suite.lookahead.aged_conversations`), through the run's held sessions
directory and tracked as every conversation file is. By the time a scenario late in the run starts, its
file is old enough: the scenario waits only for what is left of the age (nothing, in a full run), and
writes the file itself, waiting the whole age, where none was written for it (a recorded export, a
scenario that runs under another number than predicted).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass

from ccweb_conformance.fixtures.conversations import ConversationFiles, conversation_id, one_message_session
from ccweb_conformance.fixtures.notation import code_points
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite.lookahead import AgedConversation

__all__ = ["EarlyFiles", "adopt_or_write", "left_to_wait", "write_early"]


@dataclass(frozen=True)
class EarlyFiles:
    """The files written for one scenario before it runs, and the scenario (pytest node ID) they are for."""

    nodeid: str
    files: ConversationFiles


def write_early(workspace: Workspace, planned: Sequence[AgedConversation]) -> dict[int, EarlyFiles]:
    """Write the planned conversations now, per scenario number; a scenario whose file cannot be written gets none
    (its step writes it, and meets the same problem there, where it is reported)."""
    early: dict[int, EarlyFiles] = {}
    failed: set[int] = set()
    for aged in planned:
        if aged.number in failed:
            continue
        made = early.get(aged.number)
        if made is None:
            made = early[aged.number] = EarlyFiles(aged.nodeid, workspace.scenario(aged.number))
        try:
            new = made.files.new_id(aged.alias)
            made.files.write_session(new, one_message_session(new, code_points(aged.content)))
        except (OSError, ValueError):
            failed.add(aged.number)
            made.files.remove_all()
            del early[aged.number]
    return early


def adopt_or_write(files: ConversationFiles, alias: str, content: str) -> str:
    """The ID of the conversation ``alias``: the file written when the run started, else one written now."""
    planned = conversation_id(files.run_prefix, alias)
    with contextlib.suppress(ValueError):  # none written early under this scenario's prefix
        files.own(planned, "adopt")
        return planned
    made = files.new_id(alias)
    files.write_session(made, one_message_session(made, code_points(content)))
    return made


def left_to_wait(modified_ns: int, changed_ns: int, seconds: int, now_ns: int) -> float:
    """Seconds until the last change (modification or change time) is ``seconds`` old; never more than
    ``seconds`` (a time in the future is not waited for beyond it)."""
    age_ns = now_ns - max(modified_ns, changed_ns)
    return min(float(seconds), max(0.0, (seconds * 1_000_000_000 - age_ns) / 1e9))
