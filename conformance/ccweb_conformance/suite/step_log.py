"""Which steps of a scenario ran, and how: the engine's step callbacks, which pytest-bdd's public hooks call too.

One entry per step started, in order; a failed step is followed by the scenario's remaining
steps, marked skipped with no duration: they never ran (pytest-bdd's own report marks them
failed, which Cucumber viewers show as red steps with no message).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ccweb_conformance.engine.executor import Observer, StepSkipped
from ccweb_conformance.engine.scenarios import Step
from ccweb_conformance.reports.model import StepResult

__all__ = ["StepLog"]


@dataclass
class _Ran:
    step: Step
    started: float
    stopped: float | None = None
    failed: bool = False


@dataclass
class StepLog(Observer):
    """The steps of one scenario run (``steps``: every step of the scenario, background first)."""

    steps: list[Step]
    ran: list[_Ran] = field(default_factory=list)
    never_ran: int = 0
    """How many steps after the failed one were not run (the last entries of ``ran``)."""

    def before_step(self, step: Step) -> None:
        """A step starts (``pytest_bdd_before_step``)."""
        self.ran.append(_Ran(step, time.perf_counter()))

    def after_step(self, step: Step | None = None) -> None:
        """The step passed (``pytest_bdd_after_step``)."""
        if self.ran:
            self.ran[-1].stopped = time.perf_counter()

    def step_error(self, step: Step | None = None, error: BaseException | None = None) -> None:
        """The current step failed (``pytest_bdd_step_error``): the rest never runs. A step that skipped its
        scenario (:class:`StepSkipped`) stays as it began."""
        if not self.ran or isinstance(error, StepSkipped):
            return
        self.ran[-1].stopped, self.ran[-1].failed = time.perf_counter(), True
        now = time.perf_counter()
        rest = self.steps[len(self.ran) :]
        self.ran += [_Ran(step, now, now) for step in rest]
        self.never_ran = len(rest)

    def results(self) -> list[StepResult]:
        """One :class:`StepResult` per entry."""
        first_skipped = len(self.ran) - self.never_ran
        return [
            StepResult(
                entry.step.keyword,
                entry.step.text,
                "failed" if entry.failed else "skipped" if number >= first_skipped else "passed",
                0.0 if entry.stopped is None else entry.stopped - entry.started,
                entry.step.line,
                entry.step.datatable,
                entry.step.docstring,
            )
            for number, entry in enumerate(self.ran)
        ]
