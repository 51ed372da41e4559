"""Which steps of a scenario ran, and how: from the engine's step callbacks, or pytest-bdd's public hooks.

One entry per step started, in order; a failed step is followed by the scenario's remaining
steps, marked skipped with no duration: they never ran (pytest-bdd's own report marks them
failed, which Cucumber viewers show as red steps with no message).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ccweb_conformance.reports.model import StepResult

__all__ = ["LoggedStep", "StepLog"]


@dataclass(frozen=True)
class LoggedStep:
    """A step as the reports show it: keyword, text, line, table rows, docstring."""

    keyword: str
    name: str
    line: int
    rows: tuple[tuple[str, ...], ...] | None = None
    docstring: str | None = None


@dataclass
class _Ran:
    step: LoggedStep
    started: float
    stopped: float | None = None
    failed: bool = False


@dataclass
class StepLog:
    """The steps of one scenario run (``steps``: every step of the scenario, background first)."""

    steps: list[LoggedStep]
    ran: list[_Ran] = field(default_factory=list)
    never_ran: int = 0
    """How many steps after the failed one were not run (the last entries of ``ran``)."""

    def started(self, step: LoggedStep) -> None:
        """A step starts (``pytest_bdd_before_step``)."""
        self.ran.append(_Ran(step, time.perf_counter()))

    def passed(self) -> None:
        """The step passed (``pytest_bdd_after_step``)."""
        if self.ran:
            self.ran[-1].stopped = time.perf_counter()

    def failed(self) -> None:
        """The current step failed (``pytest_bdd_step_error``): the rest never runs."""
        if not self.ran:
            return
        self.ran[-1].stopped, self.ran[-1].failed = time.perf_counter(), True
        now = time.perf_counter()
        rest = self.steps[len(self.ran) :]
        self.ran += [_Ran(step, now, now) for step in rest]
        self.never_ran = len(rest)

    def results(self) -> list[StepResult]:
        """One :class:`StepResult` per entry."""
        results = []
        first_skipped = len(self.ran) - self.never_ran
        for number, entry in enumerate(self.ran):
            step = entry.step
            duration = 0.0 if entry.stopped is None else entry.stopped - entry.started
            results.append(
                StepResult(
                    step.keyword,
                    step.name,
                    "failed" if entry.failed else "skipped" if number >= first_skipped else "passed",
                    duration,
                    step.line,
                    step.rows,
                    step.docstring,
                )
            )
        return results
