"""The outcome of a run: per scenario, and derived per requirement and per group."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import ccweb_spec
from ccweb_conformance.transport.exchange import Exchange

ScenarioStatus = Literal["passed", "failed", "warning", "xfailed", "xpassed", "skipped", "notrun"]
"""notrun: the run stopped before the scenario (interrupt, --max-time, the server stopped answering)."""
RequirementStatus = Literal["passed", "failed", "warning", "xfailed", "untested"]
Verdict = Literal["passed", "failed", "interrupted"]

REPORT_FORMAT_VERSION = "1.1.0"


@dataclass(frozen=True)
class ScenarioRef:
    """One scenario of the features, as the traceability matrix names it (before any run)."""

    feature_file: str
    name: str
    examples: int
    tags: frozenset[str]

    def label(self) -> str:
        """``file.feature`` :: name, with the number of example rows of an outline."""
        rows = f" ({self.examples} examples)" if self.examples else ""
        return f"`{self.feature_file}` :: {self.name}{rows}"


@dataclass
class StepResult:
    """One Gherkin step as it ran."""

    keyword: str
    text: str
    status: Literal["passed", "failed", "skipped"]
    duration_s: float = 0.0


@dataclass
class ScenarioResult:
    """One scenario (one example row of an outline) as it ran."""

    feature: str
    feature_file: str
    """Path relative to the features folder, e.g. ``ac03_latest_fifteen.feature``."""
    scenario: str
    line: int
    tags: tuple[str, ...]
    requirements: tuple[str, ...]
    level: Literal["MUST", "SHOULD"]
    """SHOULD when every requirement the scenario proves is SHOULD-level."""
    status: ScenarioStatus
    message: str | None = None
    """Why it failed: requirement, what was sent, what came back, what was expected."""
    duration_s: float = 0.0
    transcript: list[Exchange] = field(default_factory=list)
    expected_failure_reason: str | None = None
    steps: list[StepResult] = field(default_factory=list)

    @property
    def nodeid(self) -> str:
        """A stable identifier: ``file::scenario``."""
        return f"{self.feature_file}::{self.scenario}"


@dataclass
class RequirementResult:
    """A requirement's verdict, derived from the scenarios tagged with it."""

    requirement: ccweb_spec.Requirement
    status: RequirementStatus
    scenarios: list[ScenarioResult]


@dataclass
class RunResult:
    """Everything a report needs."""

    kit_version: str
    spec_version: str
    target: str
    """A human description of what was tested, e.g. ``stdio: node server.js``."""
    transport: Literal["stdio", "http", "in-process"]
    protocol_version: str | None
    started_at: str
    """ISO 8601 UTC."""
    duration_s: float
    scenarios: list[ScenarioResult]
    strict: bool = False
    """When true, SHOULD-level failures count as failures."""
    interrupted: str | None = None
    """The signal that stopped the run (``SIGINT``, ``SIGTERM``, ``SIGHUP``), or None."""
    stopped: str | None = None
    """Why the run stopped before its last scenario (the not-run scenarios' reason), or None."""
    leftover_processes: list[str] = field(default_factory=list)
    """Processes of the server still running after it was stopped (the runner killed them)."""

    def requirement_results(self) -> list[RequirementResult]:
        """Every requirement of the spec, in spec order, with its verdict."""
        return [_verdict(r, [s for s in self.scenarios if r.id in s.requirements]) for r in ccweb_spec.requirements()]

    @property
    def failed(self) -> bool:
        """True when the run fails: a failed, unexpectedly passing or unrun scenario, or an interrupt."""
        return (
            self.interrupted is not None
            or any(s.status in ("failed", "xpassed", "notrun") for s in self.scenarios)
            or (self.strict and any(s.status == "warning" for s in self.scenarios))
        )

    @property
    def verdict(self) -> Verdict:
        """interrupted (a signal stopped it), failed or passed."""
        if self.interrupted is not None:
            return "interrupted"
        return "failed" if self.failed else "passed"

    def counts(self) -> dict[str, int]:
        """How many scenarios ended in each status."""
        return {status: sum(1 for s in self.scenarios if s.status == status) for status in _STATUSES}


_STATUSES: tuple[ScenarioStatus, ...] = ("passed", "failed", "warning", "xfailed", "xpassed", "skipped", "notrun")


def _verdict(requirement: ccweb_spec.Requirement, scenarios: Iterable[ScenarioResult]) -> RequirementResult:
    ran = [s for s in scenarios if s.status != "skipped"]
    statuses = {s.status for s in ran}
    status: RequirementStatus
    if statuses & {"failed", "xpassed"}:
        status = "failed"
    elif not ran or "notrun" in statuses:  # not a pass while a scenario of it went unchecked
        status = "untested"
    elif "warning" in statuses:
        status = "warning"
    elif "xfailed" in statuses:
        status = "xfailed"
    else:
        status = "passed"
    return RequirementResult(requirement, status, list(scenarios))
