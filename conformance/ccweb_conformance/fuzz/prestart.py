"""The fuzz phase's target, started on a thread of its own once the suite's last audit is done.

Between the suite's whole-run audit and the phase's first call the runner removes the scenarios'
files, ends pytest's session and imports Hypothesis: its own CPU. Starting the phase's server
(a process, the handshake) meanwhile overlaps the two. The start begins only after the audit and
after the suite's target stopped, so what the audit judged is what it judged before; the process
is counted for the ``fuzz`` phase and its client introduces itself as the phase's client does.
No Hypothesis here: this module is imported before the phase.
"""

from __future__ import annotations

import threading

from ccweb_conformance.errors import TargetError
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport import census
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.transport.versions import thread_client_name

__all__ = ["PHASE_CLIENT_NAME", "FuzzTargetStart"]

PHASE_CLIENT_NAME = "claude-code"
"""``clientInfo.name`` of the phase's client: the answers must not depend on who asks."""
START_SLACK_S = 30.0


class FuzzTargetStart:
    """The phase's target: :meth:`begin` starts it on a daemon thread, :meth:`take` hands it out once."""

    def __init__(self, options: RunnerOptions, workspace: Workspace) -> None:
        self.options = options
        self.workspace = workspace
        self._thread: threading.Thread | None = None
        self._target: Target | None = None
        self._error: BaseException | None = None
        self._taken = False

    def begin(self) -> None:
        """Start the target in the background (once; later calls do nothing)."""
        if self._thread is None and not self._taken:
            self._thread = threading.Thread(target=self._start, name="ccweb-fuzz-start", daemon=True)
            self._thread.start()

    def _start(self) -> None:
        try:
            with census.thread_phase("fuzz"), thread_client_name(PHASE_CLIENT_NAME):
                self._target = make_target(self.options, self.workspace.open())
                self._target.client(None)
        except BaseException as error:  # kept, and raised where the phase starts its target
            self._error = error

    def take(self) -> Target | None:
        """The started target (None: never begun); its start's error is raised here, the target closed first."""
        self._taken = True
        if self._thread is None:
            return None
        bound = 4 * self.options.timeout + START_SLACK_S  # each step of a start has its own shorter time-out
        self._thread.join(bound)
        if self._thread.is_alive():
            raise TargetError(f"the fuzz phase's target did not start within {bound:g} s")
        if self._error is not None:
            if self._target is not None:
                self._target.close()
            raise self._error
        return self._target

    def discard(self) -> None:
        """The phase will not run: stop a target begun for it."""
        if self._taken or self._thread is None:
            self._taken = True
            return
        try:
            target = self.take()
        except Exception:  # a start that failed left nothing to stop
            return
        if target is not None:
            target.close()
