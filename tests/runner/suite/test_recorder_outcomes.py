"""The export records a scenario the same way whatever its run's outcome where that outcome hangs on timing:
``export --check`` must not drift on a loaded machine."""

from __future__ import annotations

from ccweb_conformance.suite.planned import PlannedScenario
from ccweb_conformance.suite.recorder import CaseRecorder

CANCEL = "Nothing is sent for a call after the client cancelled it"
EXIT = "The server exits promptly once its standard input ends"


def _planned(name: str, tag: str) -> PlannedScenario:
    return PlannedScenario(
        feature="PROTOCOL", feature_file="protocol.feature", name=name, line=1, tags=(tag, "should"),
        test_name="test_x", keywords=frozenset(),
    )


def _recorded(planned: PlannedScenario, status: str) -> tuple[str, tuple[str, ...], str | None]:
    recorder = CaseRecorder()
    recorder.finished(planned, status, None)
    [case] = recorder.cases
    return case.id, tuple(case.requirements), case.reason


def test_the_cancellation_scenario_is_the_same_case_judged_or_not() -> None:
    """PROTO-5 is left not judged when no call could be cancelled in flight."""
    planned = _planned(CANCEL, "PROTO-5")
    expected = (f"protocol.feature::{CANCEL}", ("PROTO-5",), "the scenario sends MCP requests other than tools/call")
    assert _recorded(planned, "passed") == expected
    assert _recorded(planned, "skipped") == expected


def test_the_exit_scenario_is_the_same_case_run_or_not() -> None:
    planned = _planned(EXIT, "PROTO-6")
    expected = (
        f"protocol.feature::{EXIT}",
        ("PROTO-6",),
        "the scenario needs one transport (it is skipped elsewhere, e.g. a header that changes within one HTTP"
        " session)",
    )
    assert _recorded(planned, "passed") == expected
    assert _recorded(planned, "skipped") == expected
