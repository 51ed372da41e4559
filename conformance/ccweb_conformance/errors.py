"""The runner's errors: one family, each member tied to a step of a run and an exit code.

A run goes: parse options (cli) -> start the target (suite plugin, transport) -> scenarios
(steps, transport) -> fuzz phase -> reports. What can go wrong, where, and what it gives:

==================  ===========================================  =====================================
error               raised when                                  outcome
==================  ===========================================  =====================================
UsageError          parsing options, reading a file the user     message on stderr, exit 2
                    named (expected failures, config, reports)
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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccweb_conformance.transport.exchange import Exchange

__all__ = [
    "HandshakeViolation",
    "ProtocolFailure",
    "RunInterrupted",
    "RunnerError",
    "TargetError",
    "UsageError",
    "interrupted_exit_code",
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


class TargetError(RunnerError):
    """The implementation could not be started or reached (the CLI exits with code 2)."""


class HandshakeViolation(TargetError):
    """The server started and answered, but broke the protocol while negotiating (PROTO-1 fails, exit 1)."""

    def __init__(self, message: str, exchanges: list[Exchange] | None = None) -> None:
        super().__init__(message)
        self.exchanges = list(exchanges or [])
        """The handshake as it went, for the report's transcript."""


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
