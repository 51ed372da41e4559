"""Every process a run starts, and why: counted for the JSON report (``processes``).

A stdio server reads its source conversation from the environment at process start, so each
source binding has a process of its own, and each era a connection (a process) of its own; an
HTTP server command is started once for every binding; the bundled reference's fork server once
per run. Each run counts in its own :class:`Census` (held by its run context): :meth:`Census.note` where a
process is started, :func:`summary` for the report at the end.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ccweb_spec

__all__ = ["Census", "Started", "summary"]

REASONS: dict[str, str] = ccweb_spec.yaml_data((Path(__file__).parent / "census.yaml").read_text(encoding="utf-8"))
"""Why a run starts each role of process (``census.yaml`` beside this module)."""


@dataclass(frozen=True)
class Started:
    """One process a run started."""

    role: str
    """``stdio server``, ``HTTP server`` or ``fork server`` (a key of :data:`REASONS`)."""
    how: str
    """``exec`` (a new program) or ``fork`` (a fork of the fork server)."""
    phase: str
    """``suite``, ``fuzz``, ``rerun`` (a failure rerun alone) or ``profile``: the part of the command that needed it."""


class Census:
    """The processes one run started (thread-safe: clients are prepared on threads of their own)."""

    def __init__(self) -> None:
        self._started: list[Started] = []
        self._lock = threading.Lock()
        self._phase = "suite"

    def note(self, role: str, how: str) -> None:
        """A process was started, for the phase in progress."""
        with self._lock:
            self._started.append(Started(role, how, self._phase))

    @contextmanager
    def phase(self, phase: str) -> Iterator[None]:
        """Processes started inside the block are counted for ``phase`` (then for the one before it again)."""
        with self._lock:
            before, self._phase = self._phase, phase
        try:
            yield
        finally:
            with self._lock:
                self._phase = before

    def started(self) -> list[Started]:
        """Every process noted so far, in order."""
        with self._lock:
            return list(self._started)


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
