"""The live counter of a run: one line rewritten in place on a terminal, a plain line now and then in a log.

On a terminal (``live``): ``\\r  12/225 scenarios, 2 failed``, rewritten at every step and ended with a
newline. In a log: ``ccweb-conformance: 12/225 scenarios, 2 failed`` every :data:`LOG_INTERVAL_S`
seconds or every tenth of the total, whichever comes first, and at the last step. The scenarios and
the fuzz phase's calls use the same counter, so a run never sits silent at ``225/225``.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["LOG_INTERVAL_S", "LiveCounter"]

LOG_INTERVAL_S = 5.0
"""Seconds between progress lines in a log."""


class LiveCounter:
    """Counts ``done`` of ``total`` things (``what``: "scenarios", "fuzz calls"), with the failures among them."""

    def __init__(self, what: str, *, live: bool, log: bool = True, stream: TextIO | None = None) -> None:
        self.what = what
        self.live = live
        self.log = log and not live
        self.stream = stream
        self.total = 0
        self.shown = False
        self._last_time = time.monotonic()
        self._last_done = 0

    def text(self, done: int, failed: int) -> str:
        """``12/225 scenarios, 2 failed`` (no failure part while none failed)."""
        failures = f", {failed} failed" if failed else ""
        return f"{done}/{self.total} {self.what}{failures}"

    def update(self, done: int, failed: int = 0) -> None:
        """Show the counter at ``done`` (on a terminal at once; in a log when it is time)."""
        out = self.stream or sys.stderr
        if self.live:
            print(f"\r  {self.text(done, failed)}", end="", file=out, flush=True)
            self.shown = True
            return
        if not self.log:
            return
        now = time.monotonic()
        step = max(1, self.total // 10)
        if done - self._last_done >= step or now - self._last_time >= LOG_INTERVAL_S or done >= self.total:
            out.write(f"ccweb-conformance: {self.text(done, failed)}\n")  # one write: a signal cannot split it
            out.flush()
            self._last_time, self._last_done = now, done

    def restart(self, total: int) -> None:
        """Count to ``total`` from now on."""
        self.total = total
        self._last_time = time.monotonic()

    def finish(self) -> None:
        """End the terminal's counter line (nothing in a log)."""
        if self.live and self.shown:
            print(file=self.stream or sys.stderr, flush=True)
            self.shown = False
