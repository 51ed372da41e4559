"""The session every command that starts processes or writes files runs in.

``with session("profile") as current:`` handles SIGINT, SIGTERM and SIGHUP (the first one
raises :class:`~ccweb_conformance.errors.RunInterrupted`, so every ``finally`` below it runs;
later ones are recorded), makes this process the subreaper of what it starts, hands out one
temporary directory (``current.temporary_directory()``, created on first use) and the run's one
workspace (``current.workspace(DIR)``: the sessions directory and conversation names the suite, the
fuzz phase and ``profile`` share), and on the way out, whatever path was taken: stops every process
still carrying this run's marker (named on stderr and in ``current.leftovers``), then closes the
workspace (the run's entries swept from DIR) and removes the temporary directory. Processes first:
with the fork server stopped its descriptors are free, so the removal can walk the folder even when
the run ran out of them (``ulimit -n``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ccweb_conformance.errors import interrupted_exit_code
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.transport import limits, reaper, signals, zygote

__all__ = ["Session", "session"]

PROGRAM = "ccweb-conformance"


@dataclass
class Session:
    """What a command shares with the spine: the signal state, the temporary directory, the leftovers."""

    command: str
    state: signals.InterruptState
    folder: Path | None = None
    leftovers: list[reaper.Leftover] = field(default_factory=list)
    """Processes stopped by a sweep: left behind by a server, named in the reports and on stderr."""
    run_workspace: Workspace | None = None
    """The run's workspace once :meth:`workspace` made it; closed when the session ends."""

    def temporary_directory(self) -> Path:
        """The session's own directory under the system's temporary folder, removed when the session ends."""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix=f"ccweb-{self.command}-"))
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
        zygote.stop_shared()
        found = reaper.take_killed() + reaper.sweep()
        self.leftovers += found
        return found

    def exit_code(self) -> int | None:
        """128 + the signal when one arrived, else None."""
        return None if self.state.signum is None else interrupted_exit_code(self.state.signum)


@contextmanager
def session(command: str, *, report_leftovers: bool = True) -> Iterator[Session]:
    """Signals, subreaping, sweep and the temporary directory for the length of one command.

    First, the descriptors the command and its servers need (a limit below them is exit 2 before anything starts).
    """
    limits.ensure_descriptors()
    with signals.interrupts() as state:
        current = Session(command, state)
        reaper.become_subreaper()  # daemonised descendants of the servers come back to us
        try:
            yield current
        finally:
            signals.disarm()  # from here on a signal is recorded only: the clean-up is never cut short
            found = current.sweep()
            reaper.end_run()  # from now on a sweep goes by the marker only
            if current.run_workspace is not None:
                current.run_workspace.close()
            if current.folder is not None:
                shutil.rmtree(current.folder, ignore_errors=True)
            if report_leftovers:
                for leftover in found:
                    print(f"{PROGRAM}: warning: stopped a process left behind: {leftover.describe()}", file=sys.stderr)
