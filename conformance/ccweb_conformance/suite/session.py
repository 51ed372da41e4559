"""Runs the conformance suite in a pytest session of its own and hands back what it collected.

The only place that calls pytest: the command line asks for a run and gets a
:class:`SuiteOutcome`, without importing pytest itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

import pytest

from ccweb_conformance.options import RunnerOptions, pytest_flags
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.plugin import ResolvedOptions
from ccweb_conformance.suite.progress import RunObserver

__all__ = ["SuiteOutcome", "pytest_arguments", "run_suite"]


@dataclass
class SuiteOutcome:
    """What a suite run left: its collector, or why it could not run."""

    collector: ResultCollector | None
    startup_error: str | None
    """Why the implementation could not be started or reached."""
    broken: str | None
    """Why the suite itself could not run (pytest's usage or internal error)."""


def pytest_arguments(options: RunnerOptions, suite: Path) -> list[str]:
    """The pytest command line that runs the suite for these options."""
    return [
        str(suite),
        "-c",
        os.devnull,
        "--rootdir",
        str(suite.parent),
        # Only the plugins the suite needs, whatever else the environment has installed
        # (pytest-randomly, pytest-xdist...); the steps raise their own messages, so no
        # assertion rewriting (which cost about 0.5 s a run).
        "--disable-plugin-autoload",
        "-p",
        "pytest_bdd.plugin",
        "-p",
        "ccweb_conformance.suite.plugin",
        "--assert=plain",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        "-p",
        "no:unraisableexception",  # its garbage collections at exit cost 0.1 s
        "-p",
        "no:threadexception",  # the reader threads end quietly at end of stream; workers report through futures
        # Scenario names as written (Chinese stays Chinese, an emoji stays an emoji), not pytest's
        # ASCII escapes of outline example values.
        "-o",
        "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=true",
        *pytest_flags(options, plugin_flags=False),  # the plugin gets the options as an object
    ]


def run_suite(options: RunnerOptions, *, live: bool) -> SuiteOutcome:
    """Run the selected scenarios against the target the options name."""
    observer = RunObserver(verbose=options.verbose, live=live)
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        code = pytest.main(pytest_arguments(options, suite), plugins=[observer, ResolvedOptions(options)])
    broken = None
    if observer.startup_error is None and (
        code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) or observer.collector is None
    ):
        broken = f"the suite could not run (pytest exit code {int(code)})"
    return SuiteOutcome(observer.collector, observer.startup_error, broken)
