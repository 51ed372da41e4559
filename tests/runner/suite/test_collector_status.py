"""The result collector's status logic alone: pytest's report of one scenario, through the plugin's adapter
(``suite/plugin.py``, which hands the collector values) -> its ScenarioResult.

Fake items, calls and reports (no pytest session, no server): passed, failed, warning (a SHOULD
failure, unless strict), xfailed, xpassed, skipped, not run; which requirements a failure is charged
to and which it proves; the circuit breaker and the environment fault.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

import ccweb_spec
from ccweb_conformance.checks.failures import fail
from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.reports.model import ScenarioResult, StepResult
from ccweb_conformance.suite import collector, plugin
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.planned import PlannedScenario

STATEMENTS = {r.id: r.statement for r in ccweb_spec.requirements()}

STEPS = 3


@dataclass
class Marker:
    name: str
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class Item:
    """The parts of a pytest item the collector reads."""

    markers: list[Marker]
    nodeid: str = "features/x.feature::scenario"
    name: str = "test_scenario"
    stash: dict[Any, Any] = field(default_factory=dict)
    warned: list[Warning] = field(default_factory=list)

    def warn(self, warning: Warning) -> None:
        self.warned.append(warning)

    def iter_markers(self) -> list[Marker]:
        return self.markers

    def get_closest_marker(self, name: str) -> Marker | None:
        return next((m for m in self.markers if m.name == name), None)


@dataclass
class Report:
    """The parts of a pytest TestReport the collector reads (and may change)."""

    outcome: str
    when: str = "call"
    duration: float = 0.25
    longrepr: Any = None
    wasxfail: str | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    @property
    def skipped(self) -> bool:
        return self.outcome == "skipped"


def planned(scenario: Item) -> PlannedScenario:
    """Every fake item comes from one three-step scenario of ``x.feature`` (named after its node ID but the first)."""
    own = scenario.nodeid.split("::")[-1]
    tags = tuple(sorted(m.name for m in scenario.markers if m.name != "xfail"))
    name = "Scenario Y" if own == "scenario" else own
    return PlannedScenario("Feature X", "x.feature", name, 7, tags, scenario.name, frozenset(), (), ("s",) * STEPS)


@pytest.fixture(autouse=True)
def template(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin sees each fake item as :func:`planned` makes it."""
    monkeypatch.setattr(plugin, "planned_of", planned)


def with_steps(scenario: Item, logged: list[StepResult]) -> Item:
    """The item with its step log holding ``logged``."""
    scenario.stash[plugin.STEP_LOG_KEY] = SimpleNamespace(results=lambda: logged)
    return scenario


def item(*tags: str, xfail: str | None = None) -> Item:
    markers = [Marker(tag) for tag in tags]
    if xfail is not None:
        markers.append(Marker("xfail", {"reason": xfail}))
    return Item(markers)


def observe(
    scenario: Item, report: Report, error: BaseException | None = None, *, strict: bool = False
) -> tuple[ScenarioResult, Report, ResultCollector]:
    results = ResultCollector(strict=strict)
    call = SimpleNamespace(excinfo=None if error is None else SimpleNamespace(value=error))
    plugin._observe(results, scenario, call, report)  # type: ignore[arg-type]
    return results.results[-1], report, results


def summary(result: ScenarioResult) -> tuple[Any, ...]:
    return (result.status, result.level, result.requirements, result.charged, result.proved)


def test_a_pass_charges_nothing() -> None:
    result, report, _ = observe(item("SRC-1", "SRC-2"), Report("passed"))
    assert summary(result) == ("passed", "MUST", ("SRC-1", "SRC-2"), (), ())
    assert (result.message, result.duration_s, result.expected_failure_reason, report.outcome) == (
        None,
        0.25,
        None,
        "passed",
    )
    assert (result.feature, result.feature_file, result.scenario, result.line) == (
        "Feature X",
        "x.feature",
        "Scenario Y",
        7,
    )


def test_a_failure_of_a_check_naming_its_requirement_is_charged_to_it_alone() -> None:
    error = fail("SRC-2: wrong", expected=1, actual=2, proves="SRC-2")
    result, report, _ = observe(item("SRC-1", "SRC-2"), Report("failed"), error)
    assert summary(result) == ("failed", "MUST", ("SRC-1", "SRC-2"), ("SRC-2",), ())
    assert report.outcome == "failed"
    assert result.message is not None
    assert result.message.splitlines()[0].startswith("SRC-2 (MUST): ")
    assert result.message.splitlines()[1] == "SRC-2: wrong"


def test_a_failure_naming_no_requirement_counts_against_every_tag() -> None:
    result, _, _ = observe(item("SRC-1", "STO-5"), Report("failed"), AssertionError("boom"))
    assert summary(result) == ("failed", "MUST", ("SRC-1", "STO-5"), (), ())
    assert result.message is not None
    assert [line.split(" ")[0] for line in result.message.splitlines()] == ["SRC-1", "STO-5", "boom"]


def test_a_should_failure_is_a_warning_and_pytest_sees_a_pass() -> None:
    error = fail("STO-5: torn", expected="x", actual="y", proves="STO-5")
    scenario = item("SRC-1", "STO-5")
    result, report, _ = observe(scenario, Report("failed"), error)
    assert summary(result) == ("warning", "SHOULD", ("SRC-1", "STO-5"), ("STO-5",), ())
    assert report.outcome == "passed"
    assert [(type(w).__name__, str(w).splitlines()[0]) for w in scenario.warned] == [
        ("ShouldWarning", "STO-5 (SHOULD): " + STATEMENTS["STO-5"])
    ]


def test_strict_makes_a_should_failure_a_failure() -> None:
    error = fail("STO-5: torn", expected="x", actual="y", proves="STO-5")
    result, report, _ = observe(item("STO-5"), Report("failed"), error, strict=True)
    assert summary(result) == ("failed", "SHOULD", ("STO-5",), ("STO-5",), ())
    assert report.outcome == "failed"


def test_an_untagged_must_in_a_should_scenario_is_not_a_warning() -> None:
    error = fail("SRC-1: wrong", expected=1, actual=2, proves="SRC-1")
    result, _, _ = observe(item("STO-5"), Report("failed"), error)
    assert summary(result) == ("failed", "MUST", ("STO-5",), ("SRC-1",), ())


def steps(*statuses: str) -> list[StepResult]:
    """Step results as pytest-bdd reports them: after a failed step, the rest are failed too (never run)."""
    return [StepResult("Then", f"step {n}", status) for n, status in enumerate(statuses, 1)]  # type: ignore[arg-type]


def test_a_failure_in_the_last_step_proves_the_other_requirements() -> None:
    error = fail("SRC-2: wrong", expected=1, actual=2, proves="SRC-2")
    scenario = with_steps(item("SRC-1", "SRC-2", "SRC-3"), steps("passed", "passed", "failed"))
    result, _, _ = observe(scenario, Report("failed"), error)
    assert summary(result) == ("failed", "MUST", ("SRC-1", "SRC-2", "SRC-3"), ("SRC-2",), ("SRC-1", "SRC-3"))


def test_a_failure_before_the_last_step_proves_nothing_else() -> None:
    """pytest-bdd lists the steps after the failing one as failed: they never ran, so prove nothing.

    A fastmcp server's error without structuredContent fails PLC-4 in the call step; the step
    that would check its error code (SRC-3) never ran, so SRC-3 must not be passed by it.
    """
    error = fail("PLC-4: no structuredContent", expected=1, actual=2, proves="PLC-4")
    scenario = with_steps(item("SRC-3", "SRC-4"), steps("passed", "failed", "failed"))
    result, _, _ = observe(scenario, Report("failed"), error)
    assert summary(result) == ("failed", "MUST", ("SRC-3", "SRC-4"), ("PLC-4",), ())


def test_steps_run_counts_up_to_the_first_failed_step() -> None:
    assert [
        collector.steps_run(steps(*statuses))
        for statuses in [(), ("passed",) * 3, ("failed",) * 3, ("passed", "failed", "failed"), ("passed", "skipped")]
    ] == [0, 3, 1, 2, 2]


def test_an_expected_failure_that_failed_is_xfailed() -> None:
    result, _, _ = observe(item("SRC-1", xfail="known"), Report("skipped", wasxfail="known"), AssertionError("x"))
    assert summary(result) == ("xfailed", "MUST", ("SRC-1",), (), ())
    assert (result.expected_failure_reason, result.message) == ("known", None)


def test_an_expected_failure_that_passed_is_xpassed_with_its_reason() -> None:
    result, _, _ = observe(item("SRC-1", xfail="known"), Report("failed"))
    assert summary(result) == ("xpassed", "MUST", ("SRC-1",), (), ())
    assert (result.expected_failure_reason, result.message) == ("known", "expected failure passed: known")


def test_a_requirement_level_expected_failure_that_passed_is_a_plain_pass() -> None:
    result, _, _ = observe(item("SRC-1", xfail="known"), Report("passed", wasxfail="known"))
    assert (result.status, result.expected_failure_reason) == ("passed", None)


def test_a_skip_keeps_its_reason() -> None:
    result, _, _ = observe(item("SRC-1"), Report("skipped", longrepr=("f", 1, "Skipped: no symlinks here")))
    assert (result.status, result.message) == ("skipped", "skipped: no symlinks here")


def test_a_passed_setup_decides_nothing_and_a_scenario_is_recorded_once() -> None:
    results = ResultCollector(strict=False)
    scenario = item("SRC-1")
    for when in ("setup", "call", "teardown"):
        report = Report("passed", when=when)
        if not (when == "setup" and report.passed):
            plugin._observe(results, scenario, SimpleNamespace(excinfo=None), report)  # type: ignore[arg-type]
        if when == "setup":
            assert results.results == []
    assert [r.status for r in results.results] == ["passed"]


def test_not_run_scenarios_are_recorded_with_the_stop_reason() -> None:
    results = ResultCollector(strict=False)
    ran, missed = item("SRC-1"), Item([Marker("STO-5")], nodeid="features/x.feature::other")
    plugin._observe(results, ran, SimpleNamespace(excinfo=None), Report("passed"))  # type: ignore[arg-type]
    results.planned = [planned(ran), planned(missed)]
    results.stop_reason = "not run: the run reached --max-time 5 s"
    results.finish("not run: interrupted")
    assert [(r.status, r.level, r.message) for r in results.results] == [
        ("passed", "MUST", None),
        ("notrun", "SHOULD", "not run: the run reached --max-time 5 s"),
    ]


def test_a_fault_of_the_runners_own_disk_blames_nobody_and_stops_the_run() -> None:
    error = OSError(errno.ENOSPC, "No space left on device")
    results = ResultCollector(strict=False)
    report = Report("failed")
    plugin._observe(results, item("SRC-1"), SimpleNamespace(excinfo=SimpleNamespace(value=error)), report)  # type: ignore[arg-type]
    assert (results.results, report.outcome) == ([], "passed")
    assert results.startup_error is not None
    assert results.stop_reason == f"not run: {results.startup_error}"


def test_three_scenarios_in_a_row_without_the_server_stop_the_run() -> None:
    results = ResultCollector(strict=False)
    gone = ProtocolFailure("no answer", kind="timeout")
    for number in range(3):
        assert results.stop_reason is None
        scenario = Item([Marker("SRC-1")], nodeid=f"features/x.feature::s{number}")
        plugin._observe(results, scenario, SimpleNamespace(excinfo=SimpleNamespace(value=gone)), Report("failed"))  # type: ignore[arg-type]
    assert [r.status for r in results.results] == ["failed"] * 3
    assert results.stop_reason == (
        "not run: the implementation stopped answering (3 scenarios in a row timed out or lost the server)"
    )


def test_a_verdicts_stop_is_told_apart_from_max_time() -> None:
    """Under --jobs a scenario in flight past a verdict's stop is not judged; one in flight at --max-time is."""
    timed_out = ResultCollector(strict=False)
    timed_out.deadline, timed_out.max_time = 0.0, 5.0
    assert (timed_out.stopped_by_verdict(), timed_out.check_stop()) == (
        False,
        "not run: the run reached --max-time 5 s",
    )
    assert timed_out.stopped_by_verdict() is False
    judged = ResultCollector(strict=False)
    judged.exit_first = True
    wrong = fail("SRC-1: wrong", expected=1, actual=2, proves="SRC-1")
    plugin._observe(judged, item("SRC-1"), SimpleNamespace(excinfo=SimpleNamespace(value=wrong)), Report("failed"))  # type: ignore[arg-type]
    assert (judged.stop_reason, judged.stopped_by_verdict()) == (collector.EXIT_FIRST_REASON, True)
