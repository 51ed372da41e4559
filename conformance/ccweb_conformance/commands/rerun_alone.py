"""After a failed run, one scenario of each group of failures run again alone on a fresh server (docs/runner.md,
"Rerun alone"): a failure that comes back alone is the implementation's; one that does not points at load,
concurrency or what ran before it. Each rerun is one more run of the suite (``run_suite``) selecting that scenario by
its ``-k``, against a target of its own, in a part of the run's workspace of its own, within what is left of
``--max-time``; the verdict of the run never changes."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.reports.failure_groups import failure_groups
from ccweb_conformance.reports.model import Rerun, RerunServer, ScenarioResult
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import FuzzRequest, RunValues, TargetSpec

__all__ = ["rerun_alone", "rerun_failures"]

Suite = Callable[[RunValues, Workspace], ResultCollector]
"""Runs the suite with these values in this workspace (a rerun's own session)."""


def rerun_failures(
    values: RunValues,
    scenarios: list[ScenarioResult],
    workspace: Workspace,
    context: RunContext,
    *,
    left: Callable[[], float],
    suite: Suite,
) -> None:
    """Set ``rerun`` on the first scenario of each group of failed scenarios, in the run of ``context``; ``left``:
    seconds of --max-time left; ``suite``: what runs one rerun.

    Stops at an interrupt, raised or recorded in ``context`` (the groups not reached keep ``rerun`` None)."""
    groups = failure_groups([s for s in scenarios if s.status == "failed"])
    with context.processes.phase("rerun"):  # the processes the reruns start are reported as theirs
        try:
            for number, group in enumerate(groups, 1):
                if context.interrupt.interrupted:
                    return
                group.first.rerun = rerun_alone(values, group.first, workspace.within(f"rerun{number}"), left(), suite)
        except RunInterrupted:
            return


def _server(target: TargetSpec) -> RerunServer:
    """What is fresh for a rerun: only the session against a running server (--url without --http-cmd)."""
    if target.is_running_server:
        return "session"
    return "instance" if target.in_process else "process"


def rerun_alone(
    values: RunValues, scenario: ScenarioResult, workspace: Workspace, left: float, suite: Suite
) -> Rerun:
    """``scenario`` run again alone (by ``suite``), compared with how it failed in the run; not rerun when the
    scenario's own duration in the run is more than ``left`` seconds (a rerun never goes past --max-time)."""
    server = _server(values.target)
    if scenario.keyword is None:
        return Rerun("not_rerun", server, not_rerun="no_selection")
    if left <= scenario.duration_s:
        return Rerun("not_rerun", server, not_rerun="no_time")
    selection = dataclasses.replace(
        values.selection, keyword=scenario.keyword, tags=None, last_failed=False, exitfirst=False, collect_only=False
    )
    alone = dataclasses.replace(
        values,
        selection=selection,
        fuzz=FuzzRequest(0, values.fuzz.seed, values.fuzz.time_limit),
        verbose=False,
        max_time=left - scenario.duration_s,  # no scenario starts past this: it then has its run's time to finish
    )
    started = time.perf_counter()
    collector = suite(alone, workspace)
    took = time.perf_counter() - started
    again = next((r for r in collector.results if r.nodeid == scenario.nodeid), None)
    if again is None or again.status == "notrun":
        why = collector.startup_error or collector.stop_reason or "the scenario did not run"
        return Rerun("not_rerun", server, not_rerun="unfinished", why=why, duration_s=took)
    check = again.detail.check if again.detail is not None else None
    same = (
        again.status == "failed"
        and again.failed_requirements() == scenario.failed_requirements()
        and check == (scenario.detail.check if scenario.detail is not None else None)
    )
    return Rerun(
        "reproduced" if same else "not_reproduced",
        server,
        status=again.status,
        failed_requirements=again.failed_requirements(),
        check=check,
        duration_s=took,
    )

