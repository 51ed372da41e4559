"""The contract's own waits, by kind, summed over a run for the JSON report (``waits``).

Some of a run's time is not the runner's nor the server's speed but what the contract asks for:
a settle delay after calls, so a write landing later is seen (D-12); the server's re-read window
before it may answer ``conversation_unreadable`` (D-14); the runner's own non-atomic saves (D-14,
STO-5); the quiet time that tells a raw line's answer is complete; what is left of a conversation's real
age where the run's start could not age it (D-15); the window after a cancelled call (PROTO-5) and a stdio
server's exit at the end of its input (PROTO-6). A run against a fast server
cannot end sooner than their sum: the runner's overhead is the wall time minus it.

Each run counts its own in one :class:`Waits`, held by its run context (``transport/run_context.py``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import ccweb_spec

__all__ = ["KINDS", "Waits"]

KINDS: dict[str, str] = ccweb_spec.yaml_data((Path(__file__).parent / "waits.yaml").read_text(encoding="utf-8"))
"""Each kind of wait, with what it is (``waits.yaml`` beside this module)."""


class Waits:
    """One run's waits, by kind (thread-safe: scenarios and the watcher record from several threads)."""

    def __init__(self) -> None:
        self._totals: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, kind: str, seconds: float) -> None:
        """Add ``seconds`` of the contract's waiting of ``kind`` (one of :data:`KINDS`)."""
        if kind not in KINDS:
            raise ValueError(f"unknown kind of wait {kind!r}")
        with self._lock:
            self._totals[kind] = self._totals.get(kind, 0.0) + max(seconds, 0.0)

    @contextmanager
    def waited(self, kind: str) -> Iterator[None]:
        """Count the wall time of the block as a wait of ``kind``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.record(kind, time.perf_counter() - started)

    def totals(self) -> dict[str, float]:
        """The totals so far, rounded to milliseconds."""
        with self._lock:
            return {kind: round(seconds, 3) for kind, seconds in self._totals.items()}
