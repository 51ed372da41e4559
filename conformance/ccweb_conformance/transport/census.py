"""Every process a run starts, and why: counted for the JSON report (``processes``).

A stdio server reads its source conversation from the environment at process start, so each
source binding has a process of its own, and each era a connection (a process) of its own; an
HTTP server command is started once for every binding; the bundled reference's fork server once
per run. :func:`note` is called where a process is started, :func:`take` by the command at the end.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from typing import Any

__all__ = ["Started", "note", "summary", "take"]

REASONS = {
    "stdio server": "stdio: the source conversation is read from the environment at process start, so each "
    "source binding, and each era (a connection of its own), has a process",
    "HTTP server": "the HTTP server command, started once; every binding is a header of its requests",
    "fork server": "the bundled reference's fork server: the MCP SDK imported once, every stdio server a fork of it",
}


@dataclass(frozen=True)
class Started:
    """One process a run started."""

    role: str
    """``stdio server``, ``HTTP server`` or ``fork server`` (a key of :data:`REASONS`)."""
    how: str
    """``exec`` (a new program) or ``fork`` (a fork of the fork server)."""
    phase: str
    """``suite``, ``fuzz``, ``rerun`` (a failure rerun alone) or ``profile``: the part of the command that needed it."""


_STARTED: list[Started] = []
_LOCK = threading.Lock()
_PHASE = ["suite"]


def set_phase(phase: str) -> None:
    """Processes started from now on are counted for ``phase``."""
    _PHASE[0] = phase


def note(role: str, how: str) -> None:
    """A process was started."""
    with _LOCK:
        _STARTED.append(Started(role, how, _PHASE[0]))


def take() -> list[Started]:
    """The processes started since the last call (the count starts again, in the ``suite`` phase)."""
    with _LOCK:
        taken = list(_STARTED)
        _STARTED.clear()
        _PHASE[0] = "suite"
    return taken


def summary(started: list[Started]) -> dict[str, Any]:
    """The report's ``processes`` object: the total and one entry per kind, with its count and reason."""
    counts = Counter(started)
    return {
        "started": len(started),
        "kinds": [
            {"role": kind.role, "how": kind.how, "phase": kind.phase, "count": count, "reason": REASONS[kind.role]}
            for kind, count in sorted(counts.items(), key=lambda item: (item[0].phase, item[0].role, item[0].how))
        ],
    }
