"""Runs the suite against the bundled reference with the case recorder, for ``ccweb-conformance export``."""

from __future__ import annotations

import dataclasses
from importlib.resources import as_file, files

import pytest

from ccweb_conformance.errors import RunnerError
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.reports.case_export import RecordedCase
from ccweb_conformance.suite.progress import RunObserver
from ccweb_conformance.suite.recorder import CaseRecorder
from ccweb_conformance.suite.session import pytest_arguments


def record_cases() -> list[RecordedCase]:
    """Every scenario of the suite, recorded against the in-process reference (the oracle)."""
    # One era: a function-level case is one call, not the same call repeated in the initialize era (D-16).
    options = dataclasses.replace(RunnerOptions(), in_process=True, fuzz=0, protocol="2026-07-28")
    recorder = CaseRecorder()
    observer = RunObserver(verbose=False, live=False)
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        code = pytest.main(pytest_arguments(options, suite), plugins=[observer, recorder])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or recorder.not_passed:
        failed = ", ".join(recorder.not_passed[:3]) or f"pytest exit code {int(code)}"
        raise RunnerError(f"the bundled reference did not pass every scenario, so no export: {failed}")
    return recorder.cases
