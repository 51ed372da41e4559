"""Live progress for the CLI: one call per scenario as it ends.

On a terminal, one counter line rewritten in place, failures counted in it. Elsewhere (a CI log), a
plain line every few seconds or every tenth of the scenarios (:class:`~ccweb_conformance.reports.live.LiveCounter`);
with ``--verbose``, one line per scenario.
"""

from __future__ import annotations

import sys

from ccweb_conformance.reports.live import LiveCounter
from ccweb_conformance.reports.model import ScenarioResult

__all__ = ["Progress"]


class Progress:
    """Counts scenarios as they end."""

    def __init__(self, *, verbose: bool, live: bool, log: bool = True) -> None:
        self.verbose = verbose
        self.counter = LiveCounter("scenarios", live=live and not verbose, log=log and not verbose)
        self.done = 0
        self.failed = 0

    def planned(self, total: int) -> None:
        """How many scenarios will run (a terminal shows 0/N while the server starts)."""
        self.counter.restart(total)
        if total:
            self.counter.update(0)

    def ended(self, latest: ScenarioResult | None) -> None:
        """A scenario ended; ``latest``: its result (None when it had none: the runner's own fault)."""
        self.done += 1
        if latest is not None and latest.status in ("failed", "xpassed"):
            self.failed += 1
        if self.verbose and latest is not None:
            # one write, its newline included: a signal between print's two writes left the line open for the next
            sys.stderr.write(f"{latest.status.upper():8} {latest.feature_file}::{latest.scenario}\n")
        else:
            self.counter.update(self.done, self.failed)
