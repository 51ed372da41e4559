"""The target's start-up on a thread of its own, begun before pytest collects the scenarios.

Collecting imports the step modules and renders every scenario (the runner's own CPU); starting
the target is mostly the server's (a process start, the handshake, the era probe). Begun at
session start, the two overlap; the ``ccweb_target`` fixture takes the result, or the session's
end closes it when no scenario asked for it. An error of the start is kept and raised where the
fixture would have raised it, so nothing a start-up check reports changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ccweb_conformance.checks.ledger import SessionsLedger
from ccweb_conformance.errors import TargetError
from ccweb_conformance.transport.targets import Target

__all__ = ["EarlyStart", "Started"]


@dataclass
class Started:
    """What a start produced: the ledger and the target as far as they got, and the error that stopped it."""

    ledger: SessionsLedger | None = None
    target: Target | None = None
    error: BaseException | None = None


class EarlyStart:
    """``start`` run once on a daemon thread; :meth:`take` waits for it (bounded) and hands its result out once."""

    def __init__(self, start: Callable[[Started], None], bound_s: float) -> None:
        self._start = start
        self._started = Started()
        self.bound_s = bound_s
        """How long :meth:`take` waits; each step of a start has its own shorter time-out."""
        self.taken = False
        self._thread = threading.Thread(target=self._run, name="ccweb-target-start", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._start(self._started)
        except BaseException as error:  # kept, and raised on the fixture's thread
            self._started.error = error

    def take(self) -> Started:
        """The start's result, once it has ended (a start still running after ``bound_s`` is an error)."""
        self.taken = True
        self._thread.join(self.bound_s)
        if self._thread.is_alive():
            return Started(error=TargetError(f"the target did not start within {self.bound_s:g} s"))
        return self._started
