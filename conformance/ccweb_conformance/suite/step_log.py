"""Which steps of a scenario ran, and how, from pytest-bdd's public hooks (never its report registry).

As pytest-bdd's own report: one entry per step started, in order; a failed step is followed by
the scenario's remaining steps, marked failed with no duration (they never ran).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ccweb_conformance.reports.model import StepResult

__all__ = ["StepLog"]


@dataclass
class _Ran:
    step: Any
    started: float
    stopped: float | None = None
    failed: bool = False


@dataclass
class StepLog:
    """The steps of one scenario run (``steps``: every step of the scenario, background first)."""

    steps: list[Any]
    ran: list[_Ran] = field(default_factory=list)

    def started(self, step: Any) -> None:
        """``pytest_bdd_before_step``."""
        self.ran.append(_Ran(step, time.perf_counter()))

    def passed(self) -> None:
        """``pytest_bdd_after_step``."""
        if self.ran:
            self.ran[-1].stopped = time.perf_counter()

    def failed(self) -> None:
        """``pytest_bdd_step_error``: the current step failed; the rest never runs."""
        if not self.ran:
            return
        self.ran[-1].stopped, self.ran[-1].failed = time.perf_counter(), True
        now = time.perf_counter()
        self.ran += [_Ran(step, now, now, failed=True) for step in self.steps[len(self.ran) :]]

    def results(self) -> list[StepResult]:
        """One :class:`StepResult` per entry."""
        results = []
        for entry in self.ran:
            step = entry.step
            table = step.datatable
            rows = None if table is None else tuple(tuple(str(c) for c in row) for row in table.raw())
            duration = 0.0 if entry.stopped is None else entry.stopped - entry.started
            results.append(
                StepResult(
                    step.keyword,
                    step.name,
                    "failed" if entry.failed else "passed",
                    duration,
                    step.line_number or 0,
                    rows,
                    step.docstring,
                )
            )
        return results
