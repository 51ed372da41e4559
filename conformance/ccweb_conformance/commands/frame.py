"""The frame every command that starts processes or writes files runs in: the session, the console, the
reports, the interrupt and the exit code, once for ``run``, ``profile`` and ``export``.

The session (``with session("profile") as current:``) makes the run's one context (``current.context``,
``transport/run_context.py``: what the run started, its fork server, its signal state, its waits; passed
down to whatever needs a part, never kept in a module), handles SIGINT, SIGTERM and SIGHUP (the first one
raises :class:`~ccweb_conformance.errors.RunInterrupted`, so every ``finally`` below it runs; later ones
are recorded), makes this process the subreaper of what it starts, hands out one temporary directory
(``current.temporary_directory()``, created on first use) and the run's one workspace
(``current.workspace(DIR)``: the sessions directory and conversation names the suite, the fuzz phase and
``profile`` share), and on the way out, whatever path was taken: stops every process still carrying this
run's marker (named on stderr and in ``current.leftovers``), then closes the workspace (the entries the run
made swept, by name and identity) and removes the temporary directory if it still is the one made. Processes
first: with the fork server stopped its descriptors are free, so the removal can walk the folder even when the
run ran out of them (``ulimit -n``).

:func:`framed` runs a command's work on a session with a :class:`Frame`: the console (stdout, or
stderr when a report goes to stdout), the reports the options ask for, and one way to end: an interrupt
(raised or recorded) is ``PROGRAM: [COMMAND ]interrupted by SIGNAL; what became of the work`` and
128 + the signal; a target that cannot be started or reached is one error line and 2; then 1 for a
failure, 2 for a report not written, else 0.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ccweb_conformance.errors import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    RunInterrupted,
    TargetError,
    interrupted_exit_code,
)
from ccweb_conformance.fixtures.held_dir import Identity, identity_of, remove_made_directory
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.i18n import pick_language
from ccweb_conformance.options import redact
from ccweb_conformance.transport import limits, reaper, signals
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import ReportRequests, RunValues

__all__ = ["Frame", "Session", "console_for", "framed", "session"]

PROGRAM = "ccweb-conformance"


@dataclass
class Session:
    """What a command shares with the spine: the run's context, the temporary directory, the leftovers."""

    command: str
    context: RunContext
    folder: Path | None = None
    leftovers: list[reaper.Leftover] = field(default_factory=list)
    """Processes stopped by a sweep: left behind by a server, named in the reports and on stderr."""
    run_workspace: Workspace | None = None
    """The run's workspace once :meth:`workspace` made it; closed when the session ends."""
    folder_identity: Identity | None = None
    """Which directory :attr:`folder` was when made: removed at the end only if it still is that one."""

    def temporary_directory(self) -> Path:
        """The session's own directory under the system's temporary folder, removed when the session ends (if the
        path still leads to the directory made: never through a link, never one put in its place)."""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix=f"ccweb-{self.command}-"))
            self.folder_identity = identity_of(os.stat(self.folder, follow_symlinks=False))
        return self.folder

    def workspace(self, given: Path | None) -> Workspace:
        """The run's workspace (made on first use): ``given`` (``--sessions-dir``), else the runner's own
        directory in the temporary directory; closed when the session ends."""
        if self.run_workspace is None:
            root = None if given is not None else self.temporary_directory()
            self.run_workspace = Workspace(given, root=root)
        return self.run_workspace

    def sweep(self) -> list[reaper.Leftover]:
        """Stop what the run's servers left behind now (also done when the session ends); the ones stopped.

        The bundled reference's fork server is the runner's own, not a leftover: it is ended first.
        """
        self.context.fork_server.stop()
        found = self.context.reaping.take_killed() + self.context.reaping.sweep()
        self.leftovers += found
        return found



@contextmanager
def session(command: str, *, report_leftovers: bool = True) -> Iterator[Session]:
    """Signals, subreaping, sweep and the temporary directory for the length of one command.

    First, the descriptors the command and its servers need (a limit below them is exit 2 before anything starts).
    """
    limits.ensure_descriptors()
    context = RunContext()  # the run's one context: made here, passed down
    with signals.interrupts(context.interrupt):
        current = Session(command, context)
        context.reaping.begin()  # daemonised descendants of the servers come back to us
        try:
            yield current
        finally:
            context.interrupt.disarm()  # from here on a signal is recorded only: the clean-up is never cut short
            found = current.sweep()
            context.reaping.end()  # from now on a sweep goes by the marker only
            if current.run_workspace is not None:
                current.run_workspace.close()
            if current.folder is not None and current.folder_identity is not None:
                remove_made_directory(current.folder, current.folder_identity)
            if report_leftovers:
                for leftover in found:
                    print(f"{PROGRAM}: warning: stopped a process left behind: {leftover.describe()}", file=sys.stderr)


def console_for(reports: ReportRequests, command: str) -> TextIO:
    """Where the command's console goes: stderr when one of its reports takes stdout (``--json -``), else stdout."""
    from ccweb_conformance.commands.report_formats import requested  # noqa: PLC0415 (reports: only when asked)
    from ccweb_conformance.reports.output import is_stdout  # noqa: PLC0415

    return sys.stderr if any(is_stdout(path) for _, path in requested(reports, command)) else sys.stdout


@dataclass
class Frame:
    """One command's session, console, language and reports, and the way it ends."""

    command: str
    session: Session
    reports: ReportRequests
    """The reports asked for."""
    secrets: tuple[str, ...]
    """Values no console line or report may show (the target's)."""
    interrupted_detail: str
    """What became of the work when a signal stops it ("nothing written")."""
    console: TextIO = field(default=sys.stdout)
    language: str = field(default="en")

    @property
    def state(self) -> signals.InterruptState:
        """The run's signal state."""
        return self.context.interrupt

    @property
    def context(self) -> RunContext:
        """The run's context (``transport/run_context.py``)."""
        return self.session.context

    def redacted(self, document: Any) -> Any:
        """``document`` (the run model, a profile) with its secrets redacted, before anything renders it."""
        from ccweb_conformance.reports.redact import redacted  # noqa: PLC0415 (reports: only when asked)

        return redacted(document, self.secrets)

    def settle(self) -> None:
        """From here on a signal is recorded, not raised: the reports and the console get written whatever arrives."""
        self.state.disarm()

    def show(self, text: str, *, fit: bool = False) -> None:
        """Text on the console, rendered from a redacted model (``fit``: wrapped to a terminal's width); a reader
        that went away (``| head``) is no error."""
        from ccweb_conformance.reports.output import reader_may_leave  # noqa: PLC0415
        from ccweb_conformance.reports.terminal import fit_to_terminal  # noqa: PLC0415

        with reader_may_leave(self.console):
            print(fit_to_terminal(text, self.console) if fit else text, file=self.console, flush=True)

    def write_reports(self, document: Any, *, safe: Any = None) -> bool:
        """Every report asked of this command, from ``document`` redacted (:meth:`redacted`); False
        when one could not be written (said on stderr). ``safe``: its neutral copy, when the caller made that copy
        for its console too."""
        from ccweb_conformance.commands.report_formats import write_reports  # noqa: PLC0415

        return write_reports(document, self.reports, self.command, language=self.language, safe=safe)

    def interrupted_line(self, name: str, detail: str | None = None) -> str:
        """``PROGRAM: [COMMAND ]interrupted by NAME; DETAIL`` (``run`` says no command: it is the default one)."""
        subject = "" if self.command == "run" else f"{self.command} "
        return f"{PROGRAM}: {subject}interrupted by {name}; {detail or self.interrupted_detail}"

    def exit_code(self, *, failed: bool, written: bool = True, detail: str | None = None) -> int:
        """128 + a signal that arrived (said on stderr, ``detail`` for what became of the work), else 1 for a
        failure, 2 for a report not written, else 0."""
        if self.state.signum is not None:
            print(self.interrupted_line(self.state.name or "a signal", detail), file=sys.stderr)
            return interrupted_exit_code(self.state.signum)
        if failed:
            return EXIT_FAILED
        return EXIT_PASSED if written else EXIT_USAGE


def framed(
    command: str,
    values: RunValues,
    work: Callable[[Frame], int],
    *,
    interrupted_detail: str,
    report_leftovers: bool = True,
) -> int:
    """Run ``work`` on a session with its frame; an interrupt it raises and a target it cannot start end here."""
    frame: Frame | None = None
    try:
        with session(command, report_leftovers=report_leftovers) as current:
            console, language = console_for(values.reports, command), pick_language(values.lang)
            secrets = values.target.secrets
            frame = Frame(command, current, values.reports, secrets, interrupted_detail, console, language)
            return work(frame)
    except RunInterrupted as interrupted:
        line = frame.interrupted_line(interrupted.name) if frame is not None else f"{PROGRAM}: interrupted"
        print(line, file=sys.stderr)
        return interrupted_exit_code(interrupted.signum)
    except TargetError as error:
        print(f"{PROGRAM}: error: {redact(str(error), values.target.secrets)}", file=sys.stderr)
        return EXIT_USAGE
