"""The runner's errors: one family, each member tied to a step of a run and an exit code.

A run goes: parse options (cli) -> start the target (suite plugin, transport) -> scenarios
(steps, transport) -> fuzz phase -> reports. What can go wrong, where, and what it gives:

==================  ===========================================  =====================================
error               raised when                                  outcome
==================  ===========================================  =====================================
UsageError          parsing options, reading a file the user     message on stderr, exit 2
                    named (expected failures, config, reports)
EnvironmentFault    the runner's own machine: no working         message on stderr, exit 2; the
                    directory, a full disk, no descriptor,       line says it is not the
                    thread or process left (also as the          implementation's fault
                    OSError/RuntimeError environment_problem
                    names)
TargetError         starting or reaching the implementation:     message on stderr, exit 2
                    not found, exited, never answered, no
                    handshake
ProtocolFailure     one request during a scenario or the fuzz    that scenario fails (exit 1); the
                    phase: timeout, crash, garbage, wrong id,    requirement it proves is named
                    bad HTTP reply
HandshakeViolation  the server started but broke JSON-RPC or     PROTO-1 fails, the rest is not run,
                    MCP while negotiating                        every report written (exit 1)
RunInterrupted      SIGINT, SIGTERM or SIGHUP during a run       scenarios not run, reports say
                                                                 INTERRUPTED, exit 128 + signal
==================  ===========================================  =====================================

All of them derive from :class:`RunnerError`; nothing else the runner raises on purpose
reaches the user, and the CLI turns every member into one line, never a traceback.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccweb_conformance.transport.exchange import Exchange

__all__ = [
    "EnvironmentFault",
    "HandshakeViolation",
    "NoProcessLeft",
    "ProtocolFailure",
    "RunInterrupted",
    "RunnerError",
    "TargetError",
    "UsageError",
    "causes",
    "environment_problem",
    "interrupted_exit_code",
    "missing_working_directory",
    "no_process_left",
]

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
"""Exit codes: every required scenario passed; a scenario failed; usage or start-up error."""
EXIT_SIGNAL_BASE = 128
"""An interrupted run exits with 128 + the signal number: 130 SIGINT, 143 SIGTERM, 129 SIGHUP."""


def interrupted_exit_code(signum: int) -> int:
    """The shell's exit code for a run stopped by ``signum`` (never 0)."""
    return EXIT_SIGNAL_BASE + signum


class RunnerError(Exception):
    """Base of every error the runner reports to the user instead of a traceback."""


class UsageError(RunnerError):
    """Bad input from the user (a file, an option): the runner prints the message and exits with 2.

    The message is one line naming the file or option and the problem.
    """


class EnvironmentFault(RunnerError):
    """The runner's own machine failed it (no working directory, a full disk, no descriptor or thread left).

    One line naming the cause and saying it is not the implementation's, exit 2.
    """


class TargetError(RunnerError):
    """The implementation could not be started or reached (the CLI exits with code 2)."""


class HandshakeViolation(TargetError):
    """The server started and answered, but broke the protocol while negotiating (PROTO-1 fails, exit 1)."""

    def __init__(self, message: str, exchanges: list[Exchange] | None = None) -> None:
        super().__init__(message)
        self.exchanges = list(exchanges or [])
        """The handshake as it went, for the report's transcript."""


class NoProcessLeft(OSError):
    """A process could not be started: no process left (EAGAIN, RLIMIT_NPROC) or no memory (ENOMEM).

    ``OSError(EAGAIN, ...)`` becomes a :class:`BlockingIOError`, the same as a non-blocking read that
    would wait; a failed fork is raised as this instead, so it is told apart.
    """


def no_process_left(error: OSError) -> OSError:
    """``error`` as a :class:`NoProcessLeft` when it says a process could not be started, else itself."""
    if error.errno in (errno.EAGAIN, errno.ENOMEM) and not isinstance(error, NoProcessLeft):
        return NoProcessLeft(error.errno, f"cannot start a process: {error.strerror or error}")
    return error


NOT_THE_IMPLEMENTATION = "this is the runner's environment, not the implementation"
FILE_ERRNOS = frozenset({errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT})
"""A full or read-only disk, missing permissions: the runner could not write its own files."""
LIMIT_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM})
"""Descriptor, process and memory limits of the runner's machine."""
_CHAIN_LIMIT = 20
_MORE_PROCESSES = "raise the process limit (ulimit -u) or free memory"


def environment_problem(error: BaseException | None) -> str | None:
    """One line when the runner's own machine failed it (the error or one it came from), else None.

    A full disk, no descriptors, no threads or processes left: never the implementation's fault
    (its answers arrive over the wire and never raise these in the runner). The line names the
    cause, says so, and what to change.
    """
    return next(filter(None, map(_environment_line, causes(error))), None)


def causes(error: BaseException | None, limit: int = _CHAIN_LIMIT) -> Iterator[BaseException]:
    """``error``, then each one it came from (its ``__cause__``, else its ``__context__``), at most ``limit``."""
    for _ in range(limit):
        if error is None:
            return
        yield error
        error = error.__cause__ or error.__context__


def _fault(what: str, cause: object, fix: str) -> str:
    """The line of a fault of the runner's machine: what happened, its cause, whose it is not, and what to change."""
    return f"{what} ({cause}); {NOT_THE_IMPLEMENTATION}: {fix}"


def _environment_line(error: BaseException) -> str | None:
    if isinstance(error, RuntimeError) and "can't start new thread" in str(error):
        return _fault("the runner could not start a thread", error, _MORE_PROCESSES)
    if not isinstance(error, OSError) or error.errno is None:
        return None
    said = f"[Errno {error.errno}] {error.strerror or errno.errorcode.get(error.errno, '')}"
    if error.errno in (errno.EMFILE, errno.ENFILE):  # which open found none left is chance: not named
        return _fault("the runner ran out of file descriptors", said, "raise the limit (ulimit -n)")
    cause = f"{said}: {error.filename}" if error.filename else said
    if isinstance(error, NoProcessLeft) or error.errno == errno.ENOMEM:  # EAGAIN alone: a read that would block
        return _fault("the runner could not start a process or thread", cause, _MORE_PROCESSES)
    if error.errno in FILE_ERRNOS:
        fix = "free space, or give the runner a writable sessions directory"
        return _fault("the runner could not write its fixtures", cause, fix)
    return None


def missing_working_directory(error: OSError) -> str:
    """The line for a working directory that was removed under the runner (``Path.cwd()`` failed)."""
    return _fault("the working directory no longer exists", error.strerror or error, "run it from a folder that exists")


class RunInterrupted(KeyboardInterrupt):
    """A signal (SIGINT, SIGTERM, SIGHUP) stopped the run; pytest unwinds as for Ctrl-C.

    A :class:`KeyboardInterrupt` so that pytest ends its session as INTERRUPTED, running
    every fixture's clean-up, instead of recording a failed scenario.
    """

    def __init__(self, signum: int, name: str) -> None:
        super().__init__(name)
        self.signum = signum
        self.name = name


class ProtocolFailure(RunnerError):
    """The server misbehaved on one request: timeout, crash, garbage, wrong id, bad HTTP reply."""

    def __init__(self, message: str, exchange: Exchange | None = None, kind: str = "protocol") -> None:
        super().__init__(message)
        self.exchange = exchange
        """What was sent and what (if anything) came back."""
        self.kind = kind
        """timeout, closed, garbage, wrong-id, duplicate or http."""
