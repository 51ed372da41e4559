"""Live progress for the CLI, and the hand-over of the collected results.

On a terminal, one counter line rewritten in place. Elsewhere (a CI log), a plain line every
:data:`CI_INTERVAL_S` seconds or every tenth of the scenarios, whichever comes first.
"""

from __future__ import annotations

import sys
import time

import pytest

from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.plugin import COLLECTOR_KEY

CI_INTERVAL_S = 5.0
"""Seconds between progress lines in a log."""


class RunObserver:
    """A pytest plugin object: counts scenarios as they finish and keeps the collector."""

    def __init__(self, *, verbose: bool, live: bool, log: bool = True) -> None:
        self.verbose = verbose
        self.live = live
        self.log = log and not live
        """Plain progress lines for a log (stderr is not a terminal)."""
        self.total = 0
        self.done = 0
        self.failed = 0
        self.collector: ResultCollector | None = None
        self._last_line = time.monotonic()
        self._last_done = 0

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
        self._last_line = time.monotonic()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Advance the counter once per scenario."""
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.done += 1
            latest = self.collector.results[-1] if self.collector is not None and self.collector.results else None
            if latest is not None and latest.status in ("failed", "xpassed"):
                self.failed += 1
            if self.verbose and latest is not None:
                print(f"{latest.status.upper():8} {latest.feature_file}::{latest.scenario}", file=sys.stderr)
            elif self.live:
                print(f"\r  {self.done}/{self.total} scenarios", end="", file=sys.stderr, flush=True)
            elif self.log:
                self._log_line()

    def _log_line(self) -> None:
        now = time.monotonic()
        step = max(1, self.total // 10)
        if self.done - self._last_done >= step or now - self._last_line >= CI_INTERVAL_S or self.done == self.total:
            failed = f", {self.failed} failed" if self.failed else ""
            print(f"ccweb-conformance: {self.done}/{self.total} scenarios{failed}", file=sys.stderr, flush=True)
            self._last_line, self._last_done = now, self.done

    def pytest_sessionfinish(self) -> None:
        """End the progress line."""
        if self.live and not self.verbose and self.done:
            print(file=sys.stderr)
