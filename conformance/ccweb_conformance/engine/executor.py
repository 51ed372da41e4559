"""Runs one scenario's steps through the registry: match, call, record; no pytest.

Each step's text is matched against the registry's entries of its kind; as pytest-bdd, when
several match, the one registered last wins. The function is called with the values its
parameters name: the arguments its pattern read, ``world`` (the scenario's context),
``datatable`` (a list of rows of cells) and ``docstring``, a value an earlier step returned
under its ``target_fixture``, and anything else from the caller's ``provide``. After the first
step that does not pass, the rest are recorded as skipped, never run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ccweb_conformance.engine.registry import Registry, StepDef
from ccweb_conformance.engine.scenarios import Scenario, Step

__all__ = ["Observer", "ScenarioOutcome", "StepOutcome", "StepSkipped", "UndefinedStep", "match", "run_scenario"]

Status = Literal["passed", "failed", "skipped"]


class StepSkipped(Exception):
    """A step cannot run here (the machine lacks what it needs): the scenario is skipped with this message."""


class UndefinedStep(LookupError):
    """No step definition matches a step's text."""


@dataclass(frozen=True)
class StepOutcome:
    """How one step went: its status, the exception that ended it (if any), its definition and time."""

    step: Step
    status: Status
    error: BaseException | None = None
    definition: StepDef | None = None
    duration: float = 0.0


@dataclass(frozen=True)
class ScenarioOutcome:
    """Every step of one scenario, in order."""

    scenario: Scenario
    steps: tuple[StepOutcome, ...]

    @property
    def status(self) -> Status:
        """failed when a step failed, else skipped when one was skipped, else passed."""
        statuses = {s.status for s in self.steps}
        return "failed" if "failed" in statuses else "skipped" if "skipped" in statuses else "passed"


class Observer:
    """Callbacks around each step (pytest-bdd's before_step, after_step and step_error hooks); no-ops."""

    def before_step(self, step: Step) -> None:
        """A step starts."""

    def after_step(self, step: Step) -> None:
        """A step passed."""

    def step_error(self, step: Step, error: BaseException) -> None:
        """A step failed or was skipped."""


def match(registry: Registry, step: Step) -> tuple[StepDef, dict[str, Any]]:
    """The definition a step runs and the arguments its text holds; :class:`UndefinedStep` when none."""
    found = registry.matches(step.kind, step.text) if step.kind is not None else []
    if not found:
        raise UndefinedStep(f"no step definition matches {step.keyword} {step.text!r} (line {step.line})")
    return found[-1]


def _call(definition: StepDef, step: Step, given: dict[str, Any], provide: Callable[[str], object]) -> object:
    """The step's function called with ``given`` (``world``, earlier target fixtures, its text's arguments), its
    table and docstring, and anything else from ``provide``."""
    if step.datatable is not None:
        given["datatable"] = [list(row) for row in step.datatable]
    if step.docstring is not None:
        given["docstring"] = step.docstring
    names = definition.parameters
    return definition.function(**{name: given[name] if name in given else provide(name) for name in names})


def _refuse(name: str) -> object:
    raise LookupError(f"a step asks for {name!r}, which this run does not provide")


def run_scenario(
    scenario: Scenario,
    registry: Registry,
    world: object,
    *,
    observer: Observer | None = None,
    provide: Callable[[str], object] = _refuse,
    skip: tuple[type[BaseException], ...] = (StepSkipped,),
) -> ScenarioOutcome:
    """Run ``scenario``'s steps in order on ``world``; ``skip``: the exceptions that mean a step skipped itself."""
    watcher = observer or Observer()
    values: dict[str, object] = {"world": world}
    outcomes: list[StepOutcome] = []
    for step in scenario.steps:
        if outcomes and outcomes[-1].status != "passed":
            outcomes.append(StepOutcome(step, "skipped"))
            continue
        watcher.before_step(step)
        started, definition = time.perf_counter(), None
        try:
            definition, arguments = match(registry, step)
            value = _call(definition, step, {**values, **arguments}, provide)
            if definition.target_fixture is not None:
                values[definition.target_fixture] = value
        except BaseException as error:  # a step's failure is its outcome, not the run's
            if not isinstance(error, (Exception, *skip)):
                raise  # KeyboardInterrupt, SystemExit: the run's
            watcher.step_error(step, error)
            status: Status = "skipped" if isinstance(error, skip) else "failed"
            outcomes.append(StepOutcome(step, status, error, definition, time.perf_counter() - started))
            continue
        watcher.after_step(step)
        outcomes.append(StepOutcome(step, "passed", None, definition, time.perf_counter() - started))
    return ScenarioOutcome(scenario, tuple(outcomes))
