"""Interrupts as verdicts: SIGINT, SIGTERM and SIGHUP become :class:`RunInterrupted` in the main thread.

:func:`interrupts` installs the handlers for the length of a run and restores the old ones
after. The handlers are the process's (signals are process-wide); what a run records, which
signal stopped it, is the run's: its :class:`InterruptState`, held by its run context, to which
the installed handlers are bound. :func:`current` finds that state through the installed
handler, so no module keeps it. A signal that was ignored when the run began keeps being
ignored (``nohup`` ignores SIGHUP, a shell's background job SIGINT): whoever started the runner
asked for that. The first signal raises :class:`RunInterrupted` (pytest unwinds its session as for
Ctrl-C, running every clean-up); later ones are only recorded, so clean-up is never cut
short. Inside :func:`shielded` (stopping processes, removing files, the ``--jobs`` loop) a signal is recorded and
raised when the block ends, never in the middle of it: an exception raised wherever the main thread is can leave
a lock taken (between a lock's ``__enter__`` and the ``with`` block it opens), which a thread then waits for for
ever. A shielded block that waits names how a signal wakes it (``wake``). What another thread waits on, a signal
that stops the run ends from the handler (``hang_ups``: the run's HTTP connections are shut).
"""

from __future__ import annotations

import errno
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from ccweb_conformance.errors import RunInterrupted

__all__ = [
    "HANDLED",
    "ConsoleStalled",
    "InterruptState",
    "console_bounded",
    "current",
    "interrupts",
    "raise_if_lost",
    "shielded",
]

HANDLED: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@dataclass
class InterruptState:
    """Which signal stopped the run, if one did."""

    signum: int | None = None
    name: str | None = None
    raised: bool = False
    """True once RunInterrupted was raised (it is raised once per run)."""
    armed: bool = True
    """False once the run is past the point where stopping early makes sense (writing reports)."""
    shield_depth: int = 0
    pending: bool = False
    extra: list[str] = field(default_factory=list)
    """Signals that arrived after the first one."""
    console: bool = False
    """True inside :func:`console_bounded`: a signal arriving there starts the console's grace period."""
    wake: Callable[[], None] | None = None
    """How a signal wakes the shielded block that waits (:func:`shielded`); called from the handler."""
    hang_ups: list[Callable[[], None]] = field(default_factory=list)
    """What the signal that stops the run ends at once, whichever thread waits on it (the run's HTTP connections:
    a read from a server the run did not start ends only so); called from the handler, wherever the main thread
    is, so none may take a lock."""

    @property
    def interrupted(self) -> bool:
        """True when a signal arrived."""
        return self.signum is not None

    def error(self) -> RunInterrupted:
        """The exception that stands for the signal received."""
        assert self.signum is not None and self.name is not None
        return RunInterrupted(self.signum, self.name)

    def disarm(self) -> None:
        """From here on, signals are recorded only (the run is writing its reports)."""
        self.armed = False


CONSOLE_GRACE_SECONDS = 2.0
"""Once a signal has arrived, how long a console write may block on a reader that takes nothing."""


class ConsoleStalled(OSError):
    """The console's reader took nothing for CONSOLE_GRACE_SECONDS after a signal: the write is cut short."""


@dataclass(frozen=True, eq=False)
class _Handler:
    """The handler :func:`interrupts` installs, bound to its run's state."""

    state: InterruptState

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        state = self.state
        if state.signum is not None:
            state.extra.append(signal.Signals(signum).name)
            return
        state.signum, state.name = signum, signal.Signals(signum).name
        if state.console:
            _start_grace()
        if not state.armed:
            return
        for hang_up in state.hang_ups:
            hang_up()
        if state.shield_depth:
            state.pending = True
            if state.wake is not None:
                state.wake()
            return
        state.raised = True
        raise state.error()


def current() -> InterruptState | None:
    """The state of the run whose handlers are installed (None outside :func:`interrupts`)."""
    for sig in HANDLED:
        handler = signal.getsignal(sig)
        if isinstance(handler, _Handler):
            return handler.state
    return None


@contextmanager
def interrupts(state: InterruptState | None = None) -> Iterator[InterruptState]:
    """Handle SIGINT, SIGTERM and SIGHUP, unless ignored, for the length of the block (main thread only), recording
    into ``state`` (the run's; a new one when not given)."""
    state = InterruptState() if state is None else state
    if threading.current_thread() is not threading.main_thread():
        yield state
        return
    previous: dict[signal.Signals, Any] = {}
    try:
        for sig in HANDLED:
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue
            previous[sig] = signal.signal(sig, _Handler(state))
        yield state
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextmanager
def shielded(wake: Callable[[], None] | None = None) -> Iterator[None]:
    """A block a signal does not interrupt; a signal received meanwhile is raised at its end.

    ``wake``: called by the handler when a signal arrives in the block, so a wait in it ends (it runs inside the
    handler, wherever the main thread is: it must be reentrant, as ``queue.SimpleQueue.put`` is)."""
    state = current()
    if state is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    state.shield_depth += 1
    outer, state.wake = state.wake, wake or state.wake
    try:
        yield
    finally:
        state.shield_depth -= 1
        state.wake = outer
    if state.shield_depth == 0 and state.pending and state.armed and not state.raised:
        state.pending = False
        state.raised = True
        raise state.error()


def raise_if_lost() -> None:
    """Raise the run's interrupt again when its first raise was lost, at a point of a loop where it may be raised.

    The handler raises wherever the main thread is; in a weakref callback or a finaliser Python prints the
    exception and drops it, and the run would go on to its end. A raise that was not lost unwinds the loop, so a
    loop that is still running after one was lost it."""
    state = current()
    in_main = threading.current_thread() is threading.main_thread()
    if state is not None and state.raised and state.armed and not state.shield_depth and in_main:
        raise state.error()


def _start_grace() -> None:
    signal.setitimer(signal.ITIMER_REAL, CONSOLE_GRACE_SECONDS)


def _grace_over(signum: int, frame: FrameType | None) -> None:
    del signum, frame
    state = current()
    if state is not None and state.console:
        reason = f"the console took nothing for {CONSOLE_GRACE_SECONDS:g} s after a signal"
        raise ConsoleStalled(errno.ETIMEDOUT, reason)


@contextmanager
def console_bounded() -> Iterator[None]:
    """Console writes that a reader who takes nothing (``| stalled``) holds at most CONSOLE_GRACE_SECONDS
    once SIGINT, SIGTERM or SIGHUP has arrived (before or during the block): then ConsoleStalled is raised.

    Without a signal a slow reader is waited for, as any program does; with one, the command ends.
    """
    state = current()
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return
    previous = signal.signal(signal.SIGALRM, _grace_over)
    if state is not None:
        state.console = True
    try:
        if state is not None and state.interrupted:
            _start_grace()
        yield
    finally:
        if state is not None:
            state.console = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
