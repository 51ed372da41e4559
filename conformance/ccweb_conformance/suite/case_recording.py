"""Runs the suite against the bundled reference with the case recorder, for ``ccweb-conformance export``."""

from __future__ import annotations

from ccweb_conformance.errors import RunnerError
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.reports.case_export import RecordedCase
from ccweb_conformance.suite.engine_session import run_suite
from ccweb_conformance.suite.recorder import CaseRecorder
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import resolve_values


def record_cases(context: RunContext) -> list[RecordedCase]:
    """Every scenario of the suite, recorded against the in-process reference (the oracle), in the run of
    ``context``."""
    # One era: a function-level case is one call, not the same call repeated in the initialize era (D-16).
    values = resolve_values(RunnerOptions(in_process=True, fuzz=0, protocol="2026-07-28"))
    recorder = CaseRecorder()
    problem = run_suite(values, live=False, context=context, recorder=recorder).startup_error
    if problem is not None or recorder.not_passed:
        failed = ", ".join(recorder.not_passed[:3]) or str(problem)
        raise RunnerError(f"the bundled reference did not pass every scenario, so no export: {failed}")
    return recorder.cases
