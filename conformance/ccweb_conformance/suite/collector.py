"""Turns pytest's reports on scenarios into :class:`~ccweb_conformance.reports.model.ScenarioResult`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

import ccweb_spec
from ccweb_conformance.checks.attribution import (
    charged_requirements,
    environment_fault,
    failure_level,
    proved_requirements,
    with_era_disagreement,
)
from ccweb_conformance.checks.ledger import Audit
from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure, TargetError
from ccweb_conformance.reports.model import FailureDetail, ScenarioResult, ScenarioStatus, StepResult
from ccweb_conformance.suite.bdd import bound_scenario
from ccweb_conformance.suite.bdd import example_row as _example_row
from ccweb_conformance.suite.expected_failures import ExpectedFailures
from ccweb_conformance.suite.failure_detail import failure_detail, handshake_detail
from ccweb_conformance.suite.repeated_fault import RepeatedFault
from ccweb_conformance.suite.selection import selecting_keyword
from ccweb_conformance.suite.step_log import StepLog
from ccweb_conformance.suite.world import World
from ccweb_conformance.transport.limits import process_limit_problem
from ccweb_conformance.transport.targets import Target

_FEATURES_DIR = Path(str(files("ccweb_features"))).resolve()
_LEVELS = {r.id: r.level for r in ccweb_spec.requirements()}
_STATEMENTS = {r.id: r.statement for r in ccweb_spec.requirements()}
AUDIT_FEATURE = "Run audit"
AUDIT_FILE = "audit"
AUDIT_SCENARIO = "After the run the sessions directory holds only what the runner wrote"
AUDIT_REQUIREMENT = "RO-2"


def scenario_template(item: pytest.Item) -> Any:
    """The scenario of the kit's features an item was generated from, or None."""
    return bound_scenario(getattr(item, "function", None))


def example_row(item: pytest.Item) -> dict[str, str]:
    """The outline example an item runs ({} for a plain scenario)."""
    return _example_row(getattr(item, "callspec", None))


def is_scenario(item: pytest.Item) -> bool:
    """True for items generated from this kit's features (never a project's own)."""
    template = scenario_template(item)
    return template is not None and _in_features_dir(template.feature.filename)


@cache
def _in_features_dir(filename: str) -> bool:
    """Whether a feature file is one of the kit's (resolved once per file name: about 2,300 asks a run)."""
    return Path(filename).resolve().parent == _FEATURES_DIR


def scenario_requirements(item: pytest.Item) -> tuple[str, ...]:
    """The requirement IDs a scenario is tagged with, in spec order."""
    tags = {m.name for m in item.iter_markers()}
    return tuple(r for r in _LEVELS if r in tags)


def _level(requirements: tuple[str, ...]) -> str:
    return "SHOULD" if requirements and all(_LEVELS[r] == "SHOULD" for r in requirements) else "MUST"


def _feature_and_scenario(item: pytest.Item) -> tuple[str, str, str, int]:
    scenario = scenario_template(item)
    callspec = getattr(item, "callspec", None)
    name = scenario.name if callspec is None else f"{scenario.name} [{callspec.id}]"
    return scenario.feature.name, Path(scenario.feature.filename).name, name, scenario.line_number


HANDSHAKE_REQUIREMENT = "PROTO-1"
"""The requirement a server breaks when its handshake is not valid JSON-RPC / MCP."""
EXIT_FIRST_REASON = "not run: --exitfirst stopped the run at the first failed scenario"
GONE_KINDS = frozenset({"timeout", "closed"})
"""Wire failures that mean the server died or stopped answering (the circuit breaker counts them)."""


def _scenario_tags(item: pytest.Item) -> tuple[str, ...]:
    """The scenario's tags as the reports show them: its markers, pytest's own left out."""
    return tuple(sorted(m.name for m in item.iter_markers() if m.name not in ("xfail", "usefixtures")))


def server_gone(error: BaseException | None) -> bool:
    """True when a scenario failed because the server died, timed out or could not be restarted."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, ProtocolFailure) and error.kind in GONE_KINDS:
            return True
        if isinstance(error, TargetError) and not isinstance(error, HandshakeViolation):
            return True
        error = error.__cause__ or error.__context__
        seen += 1
    return False


def _explain(requirements: tuple[str, ...], excinfo: pytest.ExceptionInfo[BaseException] | None) -> str:
    lines = [f"{r} ({_LEVELS[r]}): {_STATEMENTS[r]}" for r in requirements]
    if excinfo is not None:
        error = excinfo.value
        if isinstance(error, AssertionError | ProtocolFailure | TargetError):
            lines.append(str(error))
        else:
            lines.append(f"{type(error).__name__}: {error}")
    return "\n".join(lines)


def steps_run(steps: list[StepResult]) -> int:
    """How many steps ran: up to the first failed one, which the step log follows with the rest (never run).

    The length of the list would make any failure look like one in the last step.
    """
    return next((number for number, step in enumerate(steps, 1) if step.status == "failed"), len(steps))


@dataclass(frozen=True)
class _Verdict:
    """What the collector decided of a scenario: its status, why it was expected to fail, its level and charge."""

    status: ScenarioStatus
    xfail_reason: str | None
    level: str
    charged: tuple[str, ...]


class ResultCollector:
    """Collects one :class:`ScenarioResult` per scenario run."""

    def __init__(self, *, strict: bool, source_names: tuple[str, str] | None = None) -> None:
        self.strict = strict
        self.source_names = source_names
        """The source variable (stdio) and header (HTTP) names, for failure blocks."""
        self.results: list[ScenarioResult] = []
        self.target_description = "not started"
        self.transport = "stdio"
        self.protocol_version: str | None = None
        self.eras: list[str] = []
        """The revisions tested, one per era (D-16), set when the target started."""
        self.one_era_reason: str | None = None
        """Why only one era is tested (``requested`` or ``server``), or None."""
        self.started_at = ""
        self._scenario_number = 0
        self._worlds: dict[str, World] = {}
        self._step_logs: dict[str, StepLog] = {}
        self._recorded: set[str] = set()
        self.startup_error: str | None = None
        self.bundled_reference = False
        """True when the target is the kit's bundled reference (no target option given)."""
        self.planned: list[pytest.Item] = []
        """The scenarios selected to run, in order (known once collection ended)."""
        self.stop_reason: str | None = None
        """Set when the rest of the run is not run: why (each such scenario's message)."""
        self.stop_after = 3
        """Scenarios in a row in which the server died or timed out, or broke the protocol the same way, before the
        rest is not run."""
        self.deadline: float | None = None
        """time.monotonic() past which no scenario starts (--max-time)."""
        self.max_time = 0.0
        self.exit_first = False
        """--exitfirst: the first failed scenario stops the run (as pytest -x: a warning or an xfail does not)."""
        self._gone_in_a_row = 0
        self._repeated = RepeatedFault()
        self.expected: ExpectedFailures | None = None
        """The --expected-failures file: its requirement entries cover the failures charged to them."""
        self.suite_keywords: list[tuple[str, frozenset[str]]] = []
        """Every scenario collected, before any selection: (test name, the names ``-k`` matches it by)."""

    def check_stop(self) -> str | None:
        """Why the next scenario must not start (the run's bound, the breaker), or None."""
        if self.stop_reason is None and self.deadline is not None and time.monotonic() > self.deadline:
            self.stop_reason = f"not run: the run reached --max-time {self.max_time:g} s"
        return self.stop_reason

    def record_not_run(self, item: pytest.Item, reason: str) -> None:
        """Record a scenario the run did not get to."""
        if item.nodeid in self._recorded:
            return
        self._recorded.add(item.nodeid)
        requirements = scenario_requirements(item)
        feature, feature_file, name, line = _feature_and_scenario(item)
        self.results.append(
            ScenarioResult(
                feature=feature,
                feature_file=feature_file,
                scenario=name,
                line=line,
                tags=_scenario_tags(item),
                requirements=requirements,
                level=_level(requirements),  # type: ignore[arg-type]
                status="notrun",
                message=reason,
            )
        )

    def finish(self, reason: str) -> None:
        """Record every planned scenario that did not run, with ``reason`` (or the stop reason)."""
        for item in self.planned:
            self.record_not_run(item, self.stop_reason or reason)

    def handshake_failed(self, error: HandshakeViolation) -> None:
        """The server broke the protocol while negotiating: PROTO-1 fails, the rest is not run."""
        requirement = HANDSHAKE_REQUIREMENT
        self.results.append(
            ScenarioResult(
                feature="MCP protocol and transports",
                feature_file="protocol.feature",
                scenario="The server negotiates MCP (handshake)",
                line=0,
                tags=("PROTOCOL", requirement),
                requirements=(requirement,),
                level="MUST",
                status="failed",
                message=f"{requirement} ({_LEVELS[requirement]}): {_STATEMENTS[requirement]}\n{error}",
                transcript=list(error.exchanges),
                detail=handshake_detail(error),
            )
        )
        self.stop_reason = "not run: the implementation broke the protocol during the handshake"

    def next_scenario_number(self) -> int:
        """A counter for per-scenario ID prefixes."""
        self._scenario_number += 1
        return self._scenario_number

    def describe(self, target: Target, *, started_at: str) -> None:
        """Remember what is being tested."""
        self.target_description = target.description
        self.transport = target.transport
        self.started_at = started_at

    def attach(self, node: Any, world: World) -> None:
        """Link a scenario's state to its item, for the transcript."""
        self._worlds[node.nodeid] = world

    def world_of(self, item: pytest.Item) -> World | None:
        """The state of a scenario that ran, or None (it had no world)."""
        return self._worlds.get(item.nodeid)

    @staticmethod
    def nodeid_of(item: pytest.Item) -> str:
        """``file.feature::Scenario name [example]``, as expected-failure files name scenarios."""
        _, feature_file, name, _ = _feature_and_scenario(item)
        return f"{feature_file}::{name}"

    def _charged(
        self, item: pytest.Item, error: BaseException | None, requirements: tuple[str, ...]
    ) -> tuple[str, ...]:
        """The failed check's requirements; PROTO-4 too when the scenario's calls got different answers in the
        two eras (D-16), whichever era the check failed in."""
        charged = charged_requirements(error, requirements)
        world = self._worlds.get(item.nodeid)
        if error is not None and world is not None and world.era_disagreement is not None:
            return with_era_disagreement(charged, requirements)
        return charged

    def observe(self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        """Record the outcome of the phase that decides the scenario."""
        if (report.when == "setup" and report.passed) or item.nodeid in self._recorded:
            return
        self._recorded.add(item.nodeid)
        requirements = scenario_requirements(item)
        error = call.excinfo.value if report.failed and call.excinfo is not None else None
        if self._runner_fault(error, report, self._worlds.get(item.nodeid)):
            return
        charged = self._charged(item, error, requirements)
        level = failure_level(charged, requirements)
        status, xfail_reason = self._status(item, call, report, level)
        status, xfail_reason = self._baselined(status, xfail_reason, charged or requirements, report)
        self._count_gone(call.excinfo.value if call.excinfo is not None else None, status)
        world = self._worlds.pop(item.nodeid, None)
        if world is not None and self.protocol_version is None:
            self.protocol_version = self._negotiated(world)
        verdict = _Verdict(status, xfail_reason, level, charged)
        self.results.append(self._result(item, call, report, world, verdict=verdict))

    def _runner_fault(self, error: BaseException | None, report: pytest.TestReport, world: World | None) -> bool:
        """True when the runner's own machine failed the scenario: the run stops (exit 2), nobody is blamed.

        Its machine, or the process limit the runner and its servers share with the user's other work: a
        server that could not start a thread dies, or answers an internal error, whatever the check was.
        """
        if error is None:
            return False
        said = None if world is None else world.target.servers_said
        noted = () if world is None else world.context.exhausted
        fault = environment_fault(error) or process_limit_problem(error, said, noted)
        if fault is None:
            return False
        self.startup_error = self.startup_error or fault
        self.stop_reason = self.stop_reason or f"not run: {fault}"
        report.outcome = "passed"
        return True

    def _status(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport, level: str
    ) -> tuple[ScenarioStatus, str | None]:
        """The scenario's status from pytest's report, and its expected-failure reason (a warning passes in pytest)."""
        xfail_reason: str | None = getattr(report, "wasxfail", None)
        if report.skipped:
            return ("xfailed" if xfail_reason is not None else "skipped"), xfail_reason
        if report.failed and self._is_xpass(item, call):
            return "xpassed", self._xfail_reason(item)
        if report.failed and level == "SHOULD" and not self.strict:
            report.outcome = "passed"
            return "warning", xfail_reason
        if report.failed:
            return "failed", xfail_reason
        return "passed", None

    def _explained(
        self,
        call: pytest.CallInfo[None],
        report: pytest.TestReport,
        world: World | None,
        *,
        verdict: _Verdict,
        against: tuple[str, ...],
    ) -> tuple[str | None, FailureDetail | None]:
        """The scenario's message and failure detail, by its status (``against``: what it counts against)."""
        status = verdict.status
        if status in ("failed", "warning") and call.excinfo is not None:
            message = _explain(against, call.excinfo)
            return message, failure_detail(world, call.excinfo.value, self._binding())
        if status == "xpassed":
            return f"expected failure passed: {verdict.xfail_reason}", None
        if status == "skipped" and isinstance(report.longrepr, tuple):
            return f"skipped: {report.longrepr[2].removeprefix('Skipped: ')}", None
        return None, None

    def _result(
        self,
        item: pytest.Item,
        call: pytest.CallInfo[None],
        report: pytest.TestReport,
        world: World | None,
        *,
        verdict: _Verdict,
    ) -> ScenarioResult:
        """The scenario's result: what it proved and what it is charged to, its steps, message and transcript."""
        requirements = scenario_requirements(item)
        feature, feature_file, name, line = _feature_and_scenario(item)
        status, charged = verdict.status, verdict.charged
        failed = status in ("failed", "warning", "xpassed")
        message, detail = self._explained(call, report, world, verdict=verdict, against=charged or requirements)
        steps = self._steps(item)
        template = scenario_template(item)
        proved = proved_requirements(requirements, charged, steps_run(steps), len(template.steps) if template else 0)
        judged = failed or status == "xfailed"
        return ScenarioResult(
            feature=feature,
            feature_file=feature_file,
            scenario=name,
            line=line,
            tags=_scenario_tags(item),
            requirements=requirements,
            level=verdict.level,  # type: ignore[arg-type]
            status=status,
            message=message,
            duration_s=report.duration,
            transcript=list(world.exchanges) if world is not None else [],
            expected_failure_reason=verdict.xfail_reason,
            steps=steps,
            detail=detail,
            charged=charged if judged else (),
            proved=proved if judged else (),
            keyword=selecting_keyword(item.name, self.suite_keywords) if failed else None,
        )

    def _baselined(
        self, status: ScenarioStatus, reason: str | None, charged: tuple[str, ...], report: pytest.TestReport
    ) -> tuple[ScenarioStatus, str | None]:
        """A failure (or warning) every requirement of whose charge has a requirement entry: an expected failure,
        whatever the scenario is tagged with."""
        judged = self.expected is not None and status in ("failed", "warning")
        covering = self.expected.covering(charged) if judged and self.expected is not None else ()
        if not covering:
            return status, reason
        report.outcome = "skipped"
        report.wasxfail = covering[0].reason
        return "xfailed", covering[0].reason

    def _binding(self) -> str | None:
        if self.source_names is None:
            return None
        return self.source_names[1] if self.transport == "http" else self.source_names[0]

    def add_audit(self, audit: Audit) -> None:
        """The whole-run RO-2 audit as one more scenario: reported when it failed or RO-2 was selected."""
        selected = any(AUDIT_REQUIREMENT in r.requirements and r.status != "notrun" for r in self.results)
        if audit.clean and not selected:
            return
        message = None
        if not audit.clean:
            message = "\n".join(
                [
                    f"{AUDIT_REQUIREMENT} ({_LEVELS[AUDIT_REQUIREMENT]}): {_STATEMENTS[AUDIT_REQUIREMENT]}",
                    "the sessions directory does not hold exactly what was there before plus what the runner wrote:",
                    audit.describe(),
                ]
            )
        self.results.append(
            ScenarioResult(
                feature=AUDIT_FEATURE,
                feature_file=AUDIT_FILE,
                scenario=AUDIT_SCENARIO,
                line=0,
                tags=(AUDIT_REQUIREMENT,),
                requirements=(AUDIT_REQUIREMENT,),
                level="MUST",
                status="passed" if audit.clean else "failed",
                message=message,
            )
        )

    def _count_gone(self, error: BaseException | None, status: ScenarioStatus) -> None:
        """The circuit breaker: after ``stop_after`` scenarios in a row lost the server, or failed with the same
        protocol fault, stop; --exitfirst too."""
        if self.exit_first and status in ("failed", "xpassed") and self.stop_reason is None:
            self.stop_reason = EXIT_FIRST_REASON
        self._gone_in_a_row = self._gone_in_a_row + 1 if server_gone(error) else 0
        if self._gone_in_a_row >= self.stop_after and self.stop_reason is None:
            self.stop_reason = (
                f"not run: the implementation stopped answering ({self._gone_in_a_row} scenarios in a row "
                "timed out or lost the server)"
            )
        if self._repeated.observe(error, status == "failed") >= self.stop_after and self.stop_reason is None:
            self.stop_reason = self._repeated.reason()

    @staticmethod
    def _xfail_reason(item: pytest.Item) -> str | None:
        marker = item.get_closest_marker("xfail")
        return None if marker is None else str(marker.kwargs.get("reason", ""))

    def _is_xpass(self, item: pytest.Item, call: pytest.CallInfo[None]) -> bool:
        return call.excinfo is None and item.get_closest_marker("xfail") is not None

    def _negotiated(self, world: World) -> str | None:
        try:
            return world.client().protocol_version
        except Exception:  # the target may be down; the version is then unknown
            return None

    def scenario_started(self, item: Any, steps: list[Any]) -> None:
        """pytest-bdd started a scenario of these steps (its ``pytest_bdd_before_scenario`` hook)."""
        self._step_logs[item.nodeid] = StepLog(list(steps))

    def step_log(self, item: Any) -> StepLog | None:
        """The steps of a scenario that started, or None."""
        return self._step_logs.get(item.nodeid)

    def _steps(self, item: pytest.Item) -> list[StepResult]:
        log = self._step_logs.pop(item.nodeid, None)
        return [] if log is None else log.results()
