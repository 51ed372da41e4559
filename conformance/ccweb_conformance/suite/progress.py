"""Live progress for the CLI, and the hand-over of the collected results.

On a terminal, one counter line rewritten in place, failures counted in it. Elsewhere (a CI log), a
plain line every few seconds or every tenth of the scenarios (:class:`~ccweb_conformance.reports.live.LiveCounter`).
"""

from __future__ import annotations

import sys

import pytest

from ccweb_conformance.reports.live import LiveCounter
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.plugin import COLLECTOR_KEY


class RunObserver:
    """A pytest plugin object: counts scenarios as they finish and keeps the collector."""

    def __init__(self, *, verbose: bool, live: bool, log: bool = True) -> None:
        self.verbose = verbose
        self.live = live
        self.counter = LiveCounter("scenarios", live=live and not verbose, log=log and not verbose)
        self.total = 0
        self.done = 0
        self.failed = 0
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
        self.counter.restart(self.total)
        if self.total:
            self.counter.update(0)  # a terminal shows 0/N while the server starts

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Advance the counter once per scenario."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
            latest = self.collector.results[-1] if self.collector is not None and self.collector.results else None
            if latest is not None and latest.status in ("failed", "xpassed"):
                self.failed += 1
            if self.verbose and latest is not None:
                print(f"{latest.status.upper():8} {latest.feature_file}::{latest.scenario}", file=sys.stderr)
            else:
                self.counter.update(self.done, self.failed)

    def pytest_sessionfinish(self) -> None:
        """End the progress line."""
        self.counter.finish()
