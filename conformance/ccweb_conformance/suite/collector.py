"""Judges each scenario's run into a :class:`~ccweb_conformance.reports.model.ScenarioResult` (no pytest).

It is handed values (``suite/planned.py``): the scenario planned, and what its run left; the engine's
run loop and the pytest plugin each build them from what they ran."""

from __future__ import annotations

import contextlib
import time
from datetime import UTC, datetime
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.attribution import (
    charged_requirements,
    failure_level,
    proved_requirements,
    with_era_disagreement,
)
from ccweb_conformance.checks.ledger import Audit, SessionsLedger
from ccweb_conformance.engine.keyword import selecting_keyword
from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure, TargetError, causes, environment_problem
from ccweb_conformance.reports.model import ScenarioResult, ScenarioStatus, StepResult
from ccweb_conformance.suite.expected_failures import ExpectedFailures, load_expected_failures
from ccweb_conformance.suite.failure_detail import failure_detail, handshake_detail
from ccweb_conformance.suite.planned import PlannedScenario, ScenarioRun
from ccweb_conformance.suite.repeated_fault import RepeatedFault
from ccweb_conformance.suite.world import World
from ccweb_conformance.transport.limits import process_limit_problem
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import RunValues

_REQUIREMENTS = {r.id: r for r in ccweb_spec.requirements()}
AUDIT_FEATURE = "Run audit"
AUDIT_FILE = "audit"
AUDIT_SCENARIO = "After the run the sessions directory holds only what the runner wrote"
AUDIT_REQUIREMENT = "RO-2"


HANDSHAKE_REQUIREMENT = "PROTO-1"
"""The requirement a server breaks when its handshake is not valid JSON-RPC / MCP."""
EXIT_FIRST_REASON = "not run: --exitfirst stopped the run at the first failed scenario"
GONE_KINDS = frozenset({"timeout", "closed"})
"""Wire failures that mean the server died or stopped answering (the circuit breaker counts them)."""


def server_gone(error: BaseException | None) -> bool:
    """True when a scenario failed because the server died, timed out or could not be restarted."""
    return any(
        (isinstance(cause, ProtocolFailure) and cause.kind in GONE_KINDS)
        or (isinstance(cause, TargetError) and not isinstance(cause, HandshakeViolation))
        for cause in causes(error, 10)
    )


def _explain(requirements: tuple[str, ...], error: BaseException | None) -> str:
    lines = [f"{r} ({_REQUIREMENTS[r].level}): {_REQUIREMENTS[r].statement}" for r in requirements]
    if isinstance(error, AssertionError | ProtocolFailure | TargetError):
        lines.append(str(error))
    elif error is not None:
        lines.append(f"{type(error).__name__}: {error}")
    return "\n".join(lines)


def steps_run(steps: list[StepResult]) -> int:
    """How many steps ran: up to the first failed one, which the step log follows with the rest (never run).

    The length of the list would make any failure look like one in the last step.
    """
    return next((number for number, step in enumerate(steps, 1) if step.status == "failed"), len(steps))


def _named(planned: PlannedScenario) -> dict[str, Any]:
    """A scenario's result's fields that name it: its feature, file, name, line, tags and requirements."""
    return {"feature": planned.feature, "feature_file": planned.feature_file, "scenario": planned.name,
            "line": planned.line, "tags": planned.tags, "requirements": planned.requirements}


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
        self._recorded: set[str] = set()
        self.startup_error: str | None = None
        self.bundled_reference = False
        """True when the target is the kit's bundled reference (no target option given)."""
        self.planned: list[PlannedScenario] = []
        """The scenarios selected to run, in order (known once the selection is made)."""
        self.stop_reason: str | None = None
        """Set when the rest of the run is not run: why (each such scenario's message)."""
        self.stop_after = 3
        """Scenarios in a row in which the server died or timed out, or broke the protocol the same way, before the
        rest is not run."""
        self.deadline: float | None = None
        """time.monotonic() past which no scenario starts (--max-time)."""
        self._out_of_time = False
        """The stop is --max-time's: what started before it is still judged."""
        self.max_time = 0.0
        self.exit_first = False
        """--exitfirst: the first failed scenario stops the run (as pytest -x: a warning or an xfail does not)."""
        self._gone_in_a_row = 0
        self._repeated = RepeatedFault()
        self.expected: ExpectedFailures | None = None
        """The --expected-failures file: its requirement entries cover the failures charged to them."""
        self.suite_keywords: list[tuple[str, frozenset[str]]] = []
        """Every scenario of the suite, before any selection: (test name, the names ``-k`` matches it by)."""

    @classmethod
    def of(cls, values: RunValues) -> ResultCollector:
        """The collector of a run of these values: strict or not, its bounds, its expected failures."""
        target, selection = values.target, values.selection
        collector = cls(strict=selection.strict, source_names=(target.source_env, target.source_header))
        collector.stop_after, collector.max_time = values.stop_after, values.max_time
        collector.exit_first = selection.exitfirst
        collector.deadline = time.monotonic() + values.max_time
        path = selection.expected_failures
        collector.expected = None if path is None else load_expected_failures(path)
        return collector

    def check_stop(self) -> str | None:
        """Why the next scenario must not start (the run's bound, the breaker), or None."""
        if self.stop_reason is None and self.deadline is not None and time.monotonic() > self.deadline:
            self.stop_reason = f"not run: the run reached --max-time {self.max_time:g} s"
            self._out_of_time = True
        return self.stop_reason

    def stopped_by_verdict(self) -> bool:
        """A judged scenario stopped the run (-x, the breaker, the runner's own fault): one after another, nothing
        planned after it would have started, so under --jobs what did start is not judged either."""
        return self.stop_reason is not None and not self._out_of_time

    def record_not_run(self, planned: PlannedScenario, reason: str) -> None:
        """Record a scenario the run did not get to."""
        if planned.nodeid in self._recorded:
            return
        self._recorded.add(planned.nodeid)
        level = failure_level((), planned.requirements)  # the scenario's own level: nothing is charged
        self.results.append(ScenarioResult(**_named(planned), level=level, status="notrun", message=reason))  # type: ignore[arg-type]

    def finish(self, reason: str) -> None:
        """Record every planned scenario that did not run, with ``reason`` (or the stop reason)."""
        for planned in self.planned:
            self.record_not_run(planned, self.stop_reason or reason)

    def order_as_planned(self) -> None:
        """Put the scenarios' results in the planned order, whichever ended first (``--jobs``); others lead."""
        place = {planned.nodeid: number for number, planned in enumerate(self.planned)}
        self.results.sort(key=lambda result: place.get(f"{result.feature_file}::{result.scenario}", -1))

    def handshake_failed(self, error: HandshakeViolation) -> None:
        """The server broke the protocol while negotiating: PROTO-1 fails, the rest is not run."""
        self.results.append(
            ScenarioResult(
                feature="MCP protocol and transports",
                feature_file="protocol.feature",
                scenario="The server negotiates MCP (handshake)",
                line=0,
                tags=("PROTOCOL", HANDSHAKE_REQUIREMENT),
                requirements=(HANDSHAKE_REQUIREMENT,),
                level="MUST",
                status="failed",
                message=_explain((HANDSHAKE_REQUIREMENT,), error),
                transcript=list(error.exchanges),
                detail=handshake_detail(error),
            )
        )
        self.stop_reason = "not run: the implementation broke the protocol during the handshake"

    def next_scenario_number(self) -> int:
        """A counter for per-scenario ID prefixes."""
        self._scenario_number += 1
        return self._scenario_number

    def describe(self, target: Target) -> None:
        """Remember what is being tested, and when it started."""
        self.target_description = target.description
        self.transport = target.transport
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")

    def attach(self, planned: PlannedScenario, world: World) -> None:
        """Link a scenario's state to it, for the transcript."""
        self._worlds[planned.nodeid] = world

    def world_of(self, planned: PlannedScenario) -> World | None:
        """The state of a scenario that ran, or None (it had no world)."""
        return self._worlds.get(planned.nodeid)

    def recorded(self, planned: PlannedScenario) -> bool:
        """Whether the scenario already has its result."""
        return planned.nodeid in self._recorded

    def _charged(self, planned: PlannedScenario, error: BaseException | None) -> tuple[str, ...]:
        """The failed check's requirements; PROTO-4 too when the scenario's calls got different answers in the
        two eras (D-16), whichever era the check failed in."""
        requirements = planned.requirements
        charged = charged_requirements(error, requirements)
        world = self._worlds.get(planned.nodeid)
        if error is not None and world is not None and world.era_disagreement is not None:
            return with_era_disagreement(charged, requirements)
        return charged

    def observe(self, planned: PlannedScenario, run: ScenarioRun) -> ScenarioStatus | None:
        """Record the scenario's result from what its run left; its status, or None when it was not the scenario's
        to judge (recorded already, or the runner's own machine failed it)."""
        if planned.nodeid in self._recorded:
            return None
        self._recorded.add(planned.nodeid)
        error = None if run.skipped is not None else run.error
        if self._runner_fault(error, self._worlds.get(planned.nodeid)):
            return None
        charged = self._charged(planned, error)
        level = failure_level(charged, planned.requirements)
        status, xfail_reason = self._status(run, error, level)
        status, xfail_reason = self._baselined(status, xfail_reason, charged or planned.requirements)
        self._count_gone(error, status)
        world = self._worlds.pop(planned.nodeid, None)
        if world is not None and self.protocol_version is None:
            with contextlib.suppress(Exception):  # the target may be down; the version is then unknown
                self.protocol_version = world.client().protocol_version
        self.results.append(
            self._result(
                planned, run, error, world, status=status, xfail_reason=xfail_reason, level=level, charged=charged
            )
        )
        return status

    def _runner_fault(self, error: BaseException | None, world: World | None) -> bool:
        """True when the runner's own machine failed the scenario: the run stops (exit 2), nobody is blamed.

        Its machine, or the process limit the runner and its servers share with the user's other work: a
        server that could not start a thread dies, or answers an internal error, whatever the check was.
        """
        if error is None:
            return False
        said = None if world is None else world.target.servers_said
        noted = () if world is None else world.context.exhausted
        fault = environment_problem(error) or process_limit_problem(error, said, noted)
        if fault is None:
            return False
        self.startup_error = self.startup_error or fault
        self.stop_reason = self.stop_reason or f"not run: {fault}"
        return True

    def _status(self, run: ScenarioRun, error: BaseException | None, level: str) -> tuple[ScenarioStatus, str | None]:
        """The scenario's status, and its expected-failure reason (a scenario entry is strict: passing fails)."""
        if run.skipped is not None:
            return "skipped", None
        if run.expected_failure is not None:
            return ("xfailed" if error is not None else "xpassed"), run.expected_failure
        if error is None:
            return "passed", None
        return ("warning" if level == "SHOULD" and not self.strict else "failed"), None

    def _result(
        self,
        planned: PlannedScenario,
        run: ScenarioRun,
        error: BaseException | None,
        world: World | None,
        *,
        status: ScenarioStatus,
        xfail_reason: str | None,
        level: str,
        charged: tuple[str, ...],
    ) -> ScenarioResult:
        """The scenario's result, from its verdict (status, expected-failure reason, level and charge): what it proved
        and what it is charged to, its steps, message and transcript."""
        requirements = planned.requirements
        failed = status in ("failed", "warning", "xpassed")
        message, detail = None, None
        if status in ("failed", "warning") and error is not None:
            message, detail = _explain(charged or requirements, error), failure_detail(world, error, self._binding())
        elif status == "xpassed":
            message = f"expected failure passed: {xfail_reason}"
        elif status == "skipped" and run.skipped is not None:
            message = f"skipped: {run.skipped}"
        steps = list(run.steps)
        proved = proved_requirements(requirements, charged, steps_run(steps), len(planned.steps))
        judged = failed or status == "xfailed"
        return ScenarioResult(
            **_named(planned),
            level=level,  # type: ignore[arg-type]
            status=status,
            message=message,
            duration_s=run.duration,
            transcript=list(world.exchanges) if world is not None else [],
            expected_failure_reason=xfail_reason,
            steps=steps,
            detail=detail,
            charged=charged if judged else (),
            proved=proved if judged else (),
            keyword=selecting_keyword(planned.test_name, self.suite_keywords) if failed else None,
        )

    def _baselined(
        self, status: ScenarioStatus, reason: str | None, charged: tuple[str, ...]
    ) -> tuple[ScenarioStatus, str | None]:
        """A failure (or warning) every requirement of whose charge has a requirement entry: an expected failure,
        whatever the scenario is tagged with."""
        covering = self.expected.covering(charged) if self.expected and status in ("failed", "warning") else ()
        return ("xfailed", covering[0].reason) if covering else (status, reason)

    def _binding(self) -> str | None:
        if self.source_names is None:
            return None
        return self.source_names[1] if self.transport == "http" else self.source_names[0]

    def note_eras(self, target: Target) -> None:
        """Which eras the run tests (D-16): every tool call is repeated in the other era the server speaks."""
        if target.detect_other_era() is not None:
            self.one_era_reason = target.one_era_reason
        self.eras = [target.client(None).protocol_version]
        if target.other_era is not None:
            self.eras.append(target.other_client(None).protocol_version)

    def final_audit(self, ledger: SessionsLedger, target: Target) -> None:
        """RO-1/RO-2 for the whole run, a settle delay after the last call, and what the server did on its way out
        (the target is stopped in between); the run's entries retired once judged."""
        settled = ledger.final_audit()
        target.close()
        self.add_audit(settled.merged(ledger.audit()))
        ledger.remove_retired()

    def add_audit(self, audit: Audit) -> None:
        """The whole-run RO-2 audit as one more scenario: reported when it failed or RO-2 was selected."""
        selected = any(AUDIT_REQUIREMENT in r.requirements and r.status != "notrun" for r in self.results)
        if audit.clean and not selected:
            return
        message = None
        if not audit.clean:
            message = _explain((AUDIT_REQUIREMENT,), None) + (
                "\nthe sessions directory does not hold exactly what was there before plus what the runner wrote:\n"
                + audit.describe()
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

    def audit_failure(self) -> str | None:
        """The whole-run audit's message when it failed, else None."""
        return next((r.message for r in self.results if r.feature_file == AUDIT_FILE and r.status == "failed"), None)

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
