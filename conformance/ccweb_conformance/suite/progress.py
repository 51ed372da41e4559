"""Live progress for the CLI, and the hand-over of the collected results."""

from __future__ import annotations

import sys

import pytest

from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.plugin import COLLECTOR_KEY


class RunObserver:
    """A pytest plugin object: counts scenarios as they finish and keeps the collector."""

    def __init__(self, *, verbose: bool, live: bool) -> None:
        self.verbose = verbose
        self.live = live
        self.total = 0
        self.done = 0
        self.collector: ResultCollector | None = None

    @property
    def startup_error(self) -> str | None:
        """Why the implementation could not be started or reached, if it could not."""
        return None if self.collector is None else self.collector.startup_error

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """Find the conformance plugin's collector; keep failure formatting cheap.

        The CLI reads failures from the exceptions themselves, so pytest's long traceback
        rendering (which the disabled terminal plugin would otherwise select) is wasted work.
        """
        config.option.tbstyle = "native"
        self.collector = config.stash.get(COLLECTOR_KEY, None)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Remember how many scenarios will run."""
        self.total = len(session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Advance the counter once per scenario."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
            if self.verbose and self.collector is not None and self.collector.results:
                latest = self.collector.results[-1]
                print(f"{latest.status.upper():8} {latest.feature_file}::{latest.scenario}", file=sys.stderr)
            elif self.live:
                print(f"\r  {self.done}/{self.total} scenarios", end="", file=sys.stderr, flush=True)

    def pytest_sessionfinish(self) -> None:
        """End the progress line."""
        if self.live and not self.verbose and self.done:
            print(file=sys.stderr)
