"""What a mutant's or a variant's batch run must show, shared by the test files that split each batch."""

from __future__ import annotations

from typing import Any

from suite_size import HTTP_ONLY, NOT_IN_PROCESS, ROOT_SKIPS

from mutants.catalogue import MUTANTS, VARIANTS, scenario_matches

NOT_JUDGED = "skipped: not judged: "
"""How a scenario the runner's machine was too busy to judge is skipped (a torn save completed late, no call
cancelled in flight): load's doing, not the implementation's."""


def not_judged(report: dict[str, Any]) -> list[str]:
    """The names of the report's scenarios left not judged for the machine's load."""
    return [s["name"] for s in report["scenarios"] if s["status"] == "skipped" and _said(s).startswith(NOT_JUDGED)]


def _said(scenario: dict[str, Any]) -> str:
    return str(scenario.get("message") or "")


def failed_scenarios(report: dict[str, Any]) -> list[str]:
    """The names of the report's failed scenarios."""
    return [s["name"] for s in report["scenarios"] if s["status"] == "failed"]


def assert_killed(name: str, run: dict[str, Any]) -> None:
    """The mutant's run exited 1 with the scenario it names among the failed ones."""
    mutant = MUTANTS[name]
    assert run["report"] is not None, f"no report (exit {run['exit']}):\n{run['log'][-3000:]}"
    failed = failed_scenarios(run["report"])
    assert run["exit"] == 1, f"mutant {name} SURVIVED ({mutant.description}); exit {run['exit']}"
    assert any(scenario_matches(mutant.killed_by, f) for f in failed), (
        f"mutant {name}: {mutant.killed_by!r} did not fail; failed instead: {failed}"
    )


def _problems(report: dict[str, Any], status: str) -> list[str]:
    return [f"{s['name']}: {s['message']}"[:600] for s in report["scenarios"] if s["status"] == status]


def assert_passes(name: str, run: dict[str, Any]) -> None:
    """The variant's whole run exited 0, no failure, warnings only for the SHOULDs it gives up."""
    variant = VARIANTS[name]
    assert run["report"] is not None, f"no report (exit {run['exit']}):\n{run['log'][-3000:]}"
    report = run["report"]
    failures = _problems(report, "failed")
    assert run["exit"] == 0 and not failures, f"FALSE FAILURE of variant {name}: " + "\n".join(failures)
    warned = {r for s in report["scenarios"] if s["status"] == "warning" for r in s["failedRequirements"]}
    assert warned == set(variant.warnings), _problems(report, "warning")
    # every warning is charged to the requirements the variant gives up (a scenario tagged with one of them may
    # still pass when its failing check proves another requirement), and a variant that gives some up warns
    warnings = [s for s in report["scenarios"] if s["status"] == "warning"]
    assert all(set(s["failedRequirements"]) <= set(variant.warnings) for s in warnings), _problems(report, "warning")
    assert report["counts"]["warning"] == len(warnings) and bool(warnings) == bool(variant.warnings)
    counts = report["counts"]
    # in process the HTTP-only and own-process scenarios are skipped, and a root runner skips the unreadable-file one;
    # a loaded machine may leave a timing scenario not judged besides (a skip, never a pass)
    assert counts["skipped"] - len(not_judged(report)) == HTTP_ONLY + NOT_IN_PROCESS + ROOT_SKIPS
    assert counts["passed"] + counts["warning"] + counts["skipped"] == counts["total"]
