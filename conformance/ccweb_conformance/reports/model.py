"""The outcome of a run: per scenario, and derived per requirement and per group."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import ccweb_spec
from ccweb_conformance.transport.exchange import Exchange

ScenarioStatus = Literal["passed", "failed", "warning", "xfailed", "xpassed", "skipped", "notrun"]
"""notrun: the run stopped before the scenario (interrupt, --max-time, the server stopped answering)."""
RequirementStatus = Literal["passed", "failed", "warning", "xfailed", "notreached", "untested"]
"""notreached: a scenario tagged with the requirement ran, but stopped (failed on another requirement's check)
before any check of it: never a pass. untested: no scenario of it ran."""
Verdict = Literal["passed", "failed", "interrupted"]

REPORT_FORMAT_VERSION = "1.6.0"
"""1.1.0: requirements carry statementZh; runs carry interrupted, stopped, leftoverProcesses; status notrun.
1.2.0: runs carry selection; scenarios carry diagnosis (headline, block, hint).
1.3.0: runs carry processes (what was started, and why), waits (the contract's own, by kind), configFile and
expectedFailuresFile; a failure's diagnosis carries its reproducer.
1.4.0: runs carry staleExpectedFailures; an expected failure's failedRequirements name what it is charged to.
1.5.0: runs carry failureGroups (identical failures grouped); a diagnosis carries its group's number; an exchange
names the non-finite numbers it held (nonFiniteNumbers, written as strings: RFC 8259 JSON only); a requirement whose
scenarios ran but never reached its checks is notreached, never passed.
1.6.0: a failure group carries rerun: its first scenario run again alone after the run (reproduced alone, not
reproduced alone, or not rerun and why); a process started for it is counted in phase rerun."""


@dataclass(frozen=True)
class ScenarioRef:
    """One scenario of the features, as the traceability matrix names it (before any run)."""

    feature_file: str
    name: str
    examples: int
    tags: frozenset[str]


@dataclass
class StepResult:
    """One Gherkin step as it ran."""

    keyword: str
    text: str
    status: Literal["passed", "failed", "skipped"]
    duration_s: float = 0.0
    line: int = 0
    """The step's line in its feature file (0 when unknown)."""
    data_table: tuple[tuple[str, ...], ...] | None = None
    """The step's data table (rows of cells), if it has one."""
    doc_string: str | None = None
    """The step's doc string, if it has one."""


@dataclass(frozen=True)
class StoredConversation:
    """A conversation file a scenario wrote, as the failure block shows it."""

    conversation_id: str
    alias: str | None
    messages: list[Any] | None
    """The stored ``messages`` when the file is a JSON session, else None."""
    note: str | None = None
    """What the file is when it has no messages to show (a directory, a link, raw bytes)."""


@dataclass(frozen=True)
class FailureDetail:
    """What a failed scenario was checking, for the console's failure block."""

    check: str
    """The check that failed, in one line (``items differ``)."""
    expected: Any = None
    actual: Any = None
    compared: bool = False
    """True when ``expected`` and ``actual`` are the contract values compared field by field."""
    arguments: Any = None
    """The arguments of the last tools/call (``MISSING`` when there was none)."""
    method: str | None = None
    source: str | None = None
    """The source conversation bound for the call, or None."""
    binding: str | None = None
    """How the source is bound: the environment variable or header name."""
    conversations: tuple[StoredConversation, ...] = ()
    at: str = "$"
    """Where the compared values sit in the result object (``$.items``): paths are shown from its root."""


RerunOutcome = Literal["reproduced", "not_reproduced", "not_rerun"]
"""What a failure's scenario did when run again alone: the same requirements and check failed, or not; or why it
was not rerun."""
RerunServer = Literal["process", "instance", "session"]
"""What was fresh for the rerun: a server process (stdio, --http-cmd, the bundled reference), a server in a thread
of the runner (--in-process), or only a session of the same running server (--url)."""
NotRerun = Literal["no_time", "no_selection", "unfinished"]
"""Why a failure was not rerun alone: too little of --max-time left, no -k selects the scenario alone (the fuzz
phase's), or the rerun did not finish (the server did not start, the run's bound came)."""


@dataclass(frozen=True)
class Rerun:
    """A failed scenario run again alone after the run, on a fresh server (docs/runner.md, "Rerun alone")."""

    outcome: RerunOutcome
    server: RerunServer
    status: ScenarioStatus | None = None
    """The rerun's status (None when it was not rerun)."""
    failed_requirements: tuple[str, ...] = ()
    """The requirements the rerun's failure was charged to."""
    check: str | None = None
    """The check that failed in the rerun."""
    not_rerun: NotRerun | None = None
    why: str | None = None
    """Of an unfinished rerun: what stopped it (the start-up error, the run's bound)."""
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
    detail: FailureDetail | None = None
    """For a failed, warning or unexpectedly passing scenario: what the failure block shows."""
    charged: tuple[str, ...] = ()
    """The requirements the failure is charged to: those of the check that failed (may lie outside
    ``requirements``). Empty: every requirement of the scenario (a failure nothing attributes)."""
    proved: tuple[str, ...] = ()
    """Of a failed or warning scenario, the other requirements whose checks all ran and passed."""
    baselined: tuple[str, ...] = ()
    """Requirements whose differences the expected-failures file let pass inside this scenario (the fuzz phase
    runs on past a difference charged only to them)."""
    keyword: str | None = None
    """A ``-k`` expression that selects this scenario alone from the whole suite (None when none was found)."""
    reproducer: str | None = None
    """Of a failed or warning scenario: the command that reruns it alone against the same target, secrets redacted."""
    rerun: Rerun | None = None
    """Of the first scenario of a group of failures: what it did when run again alone after the run (None: not
    tried: the run passed, was interrupted, or --no-rerun)."""

    def failed_requirements(self) -> tuple[str, ...]:
        """The requirements this scenario's failure, warning, unexpected pass or expected failure counts against."""
        return (self.charged or self.requirements) if self.status in _AGAINST else ()

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
    selection: str | None = None
    """The ``--tags`` / ``-k`` selection, when the run was one: reports then name only what it reached."""
    interrupted: str | None = None
    """The signal that stopped the run (``SIGINT``, ``SIGTERM``, ``SIGHUP``), or None."""
    stopped: str | None = None
    """Why the run stopped before its last scenario (the not-run scenarios' reason), or None."""
    leftover_processes: list[str] = field(default_factory=list)
    """Processes of the server still running after it was stopped (the runner killed them)."""
    eras: list[str] = field(default_factory=list)
    """The protocol revisions tested, one per era (D-16): the negotiated one first; empty when none was."""
    one_era_reason: str | None = None
    """Why only one era was tested: ``requested`` (``--protocol``) or ``server`` (it speaks one)."""
    bundled_reference: bool = False
    """True when the target was the kit's bundled reference (no --stdio, --url or --http-cmd)."""
    processes: dict[str, Any] = field(default_factory=lambda: {"started": 0, "kinds": []})
    """The processes the run started, by kind, with why (``transport.census.summary``)."""
    waits: dict[str, float] = field(default_factory=dict)
    """The contract's own waits, seconds by kind (``checks.waits``)."""
    config_file: str | None = None
    """The config file whose values the run took (ccweb-conformance.toml or a pyproject.toml), or None."""
    expected_failures_file: str | None = None
    """The ``--expected-failures`` file the verdicts were read against, or None."""
    stale_expected_failures: list[str] = field(default_factory=list)
    """Entries of the expected-failures file that covered nothing the run judged (each fails the run)."""

    def requirement_results(self) -> list[RequirementResult]:
        """Every requirement of the spec (of the selection, when there is one), in spec order, with its verdict."""
        bearing: dict[str, list[ScenarioResult]] = {}  # the scenarios that tag, are charged to or baseline each one
        for scenario in self.scenarios:
            for requirement in {*scenario.requirements, *scenario.charged, *scenario.baselined}:
                bearing.setdefault(requirement, []).append(scenario)
        results = [_verdict(r, bearing.get(r.id, [])) for r in ccweb_spec.requirements()]
        return results if self.selection is None else [r for r in results if r.scenarios]

    @property
    def failed(self) -> bool:
        """True when the run fails: a failed, unexpectedly passing or unrun scenario, or an interrupt."""
        return (
            self.interrupted is not None
            or bool(self.stale_expected_failures)
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


_AGAINST: tuple[ScenarioStatus, ...] = ("failed", "warning", "xpassed", "xfailed")
"""Statuses that say something against the requirements charged (an expected failure is still one)."""
_STATUSES: tuple[ScenarioStatus, ...] = ("passed", "failed", "warning", "xfailed", "xpassed", "skipped", "notrun")


def scenario_bearing(requirement: str, scenario: ScenarioResult) -> ScenarioStatus | None:
    """What ``scenario`` says of ``requirement`` (None: nothing, it never got to its checks).

    A failure counts only against the requirements it is charged to (the failed check's);
    the scenario's other requirements are passed by it when their checks all ran, else untouched.
    """
    if scenario.status in _AGAINST:
        if requirement in scenario.failed_requirements():
            return scenario.status
        if requirement in scenario.baselined:  # a difference of it was let pass: never a pass
            return "xfailed"
        return "passed" if requirement in scenario.proved else None
    if requirement in scenario.baselined:
        return "xfailed"
    return scenario.status if requirement in scenario.requirements else None


def not_reached(requirement: str, scenario: ScenarioResult) -> bool:
    """True when ``scenario``, tagged with ``requirement``, ran and stopped before any check of it: it failed (or
    warned) on another requirement's check before its last step, so its checks of ``requirement`` never ran."""
    return requirement in scenario.requirements and scenario.status in _AGAINST and (
        scenario_bearing(requirement, scenario) is None
    )


def unreached_requirements(scenario: ScenarioResult) -> tuple[str, ...]:
    """The requirements of ``scenario`` none of whose checks it reached (see :func:`not_reached`)."""
    return tuple(r for r in scenario.requirements if not_reached(r, scenario))


def _verdict(requirement: ccweb_spec.Requirement, scenarios: Iterable[ScenarioResult]) -> RequirementResult:
    listed = list(scenarios)
    statuses = {b for s in listed if (b := scenario_bearing(requirement.id, s)) not in (None, "skipped")}
    unreached = any(not_reached(requirement.id, s) for s in listed)
    status: RequirementStatus
    if statuses & {"failed", "xpassed"}:
        status = "failed"
    elif "notrun" in statuses or not (statuses or unreached):  # not a pass while a scenario of it went unchecked
        status = "untested"
    elif "warning" in statuses:
        status = "warning"
    elif "xfailed" in statuses:
        status = "xfailed"
    elif unreached:  # a scenario of it ran but stopped before its checks: never a pass
        status = "notreached"
    else:
        status = "passed"
    return RequirementResult(requirement, status, listed)
