"""A requirement no check reached is "not reached" in every report, never PASS (issue 34, item 5).

The case measured: SDK validation answers every wrong-typed argument with a plain-text tool error, so each
ARG-3 rejection scenario stops at the placement check (PLC-1) before its error-code check; the 15.0
scenario passes. ARG-3 showed PASS although no rejection check of it ran.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import scenario, steps

from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import build_cucumber
from ccweb_conformance.reports.github import annotation_lines
from ccweb_conformance.reports.json_report import build_json
from ccweb_conformance.reports.junit import build_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import RunResult, unreached_requirements

WRONG_TYPE = "Arguments of the wrong type are rejected, not coerced [limit-\"15\"]"


def sdk_validation_run(selection: str | None = None) -> RunResult:
    """The 15.0 scenario passes; a rejection scenario stops at PLC-1 in its second step of three."""
    return RunResult(
        kit_version="0.1.0", spec_version="1.0.0", target="stdio: node server.js", transport="stdio",
        protocol_version="2025-06-18", started_at="2026-12-05T10:00:00Z", duration_s=1.0, selection=selection,
        scenarios=[
            scenario(
                "ac06_arguments.feature", "An integral number written with a fraction is an integer",
                ("ARG-1", "ARG-3"), "passed", steps=steps("passed", "passed", "passed"),
            ),
            scenario(
                "ac06_arguments.feature", WRONG_TYPE, ("ARG-3",), "failed",
                steps=steps("passed", "failed", "failed"), charged=("PLC-1",),
                message="PLC-1 (MUST): ...\nPLC-1: the result object is neither structuredContent nor ...",
            ),
        ],
    )


def verdicts(run: RunResult) -> dict[str, str]:
    return {r.requirement.id: r.status for r in run.requirement_results()}


def test_a_requirement_whose_only_failing_scenario_stopped_before_its_checks_is_not_reached() -> None:
    run = sdk_validation_run()
    assert unreached_requirements(run.scenarios[1]) == ("ARG-3",)
    assert unreached_requirements(run.scenarios[0]) == ()
    found = verdicts(run)
    assert (found["ARG-3"], found["ARG-1"], found["PLC-1"]) == ("notreached", "passed", "failed")


def test_a_failure_of_the_requirement_still_wins_and_a_proved_one_passes() -> None:
    run = sdk_validation_run()
    run.scenarios[1].charged = ("ARG-3",)
    assert verdicts(run)["ARG-3"] == "failed"
    run.scenarios[1].charged, run.scenarios[1].proved = ("PLC-1",), ("ARG-3",)  # failed at its last step
    assert verdicts(run)["ARG-3"] == "passed"


def test_a_scenario_that_was_not_run_keeps_the_requirement_untested() -> None:
    run = sdk_validation_run()
    run.scenarios[0].status = "notrun"
    assert verdicts(run)["ARG-3"] == "untested"


def test_the_console_says_not_reached_and_where_the_scenario_stopped() -> None:
    text = render_summary(sdk_validation_run(), color=False, verbose=False)
    lines = text.splitlines()
    arg3 = lines.index("  not reached  ARG-3     MUST")
    assert lines[arg3 + 1] == (
        f"      FAIL ac06_arguments.feature::{WRONG_TYPE}: stopped at a check of PLC-1, before any check of ARG-3"
    )
    assert not any(line.startswith("  PASS") and "ARG-3" in line for line in lines)


def test_the_chinese_console_says_not_reached_too() -> None:
    text = render_summary(sdk_validation_run(), color=False, verbose=False, language="zh-CN")
    [line] = [line for line in text.splitlines() if "ARG-3" in line and "MUST" in line]
    assert line.startswith("  未检查到")
    assert f"{WRONG_TYPE}：在 PLC-1 的检查处停止，ARG-3 的检查一项也没有运行" in text  # noqa: RUF001


def test_the_json_report_says_notreached() -> None:
    report = build_json(sdk_validation_run())
    Draft202012Validator(report_schema()).validate(report)
    status = {r["id"]: r["status"] for r in report["requirements"]}
    assert (status["ARG-3"], status["ARG-1"]) == ("notreached", "passed")


def test_the_markdown_table_says_not_reached() -> None:
    for language, label in (("en", "⚪ not reached"), ("zh-CN", "⚪ 未检查到")):
        text = render_markdown(sdk_validation_run(), language)
        rows = [line for line in text.splitlines() if line.startswith("| ARG-3 ")]
        assert rows and all(f"| {label} |" in row for row in rows), rows


def test_junit_names_the_requirement_not_reached_in_the_suite_and_the_failure() -> None:
    root = build_junit(sdk_validation_run())
    properties = [(p.get("name"), p.get("value")) for p in root.iter("property") if p.get("name") == "notReached"]
    assert properties == [
        (
            "notReached",
            "ARG-3: not reached: 1 scenario(s) of it stopped at a check of PLC-1 before any check of it (never a pass)",
        )
    ]
    [failure] = list(root.iter("failure"))
    assert "not reached: ARG-3 (the scenario stopped before any check of them)" in (failure.text or "")
    ET.tostring(root)  # well-formed


def test_cucumber_says_which_requirements_the_failed_scenario_did_not_reach() -> None:
    features = build_cucumber(sdk_validation_run())
    messages = [
        step["result"].get("error_message", "") for f in features for e in f["elements"] for step in e["steps"]
    ]
    assert [m.rsplit("\n", 1)[-1] for m in messages if m] == [
        "not reached: ARG-3 (the scenario stopped before any check of them)"
    ]
    json.dumps(features)


def test_github_warns_about_a_requirement_not_reached() -> None:
    lines = annotation_lines(sdk_validation_run())
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(warnings) == 1
    assert warnings[0].startswith(
        "::warning file=features/ccweb_features/ac06_arguments.feature,line=10,title=ARG-3 (MUST) not reached%3A "
    )
    assert "::no check of ARG-3 ran: the scenario stopped at a check of PLC-1%0A" in warnings[0]
    assert [line.split(",", 2)[2].split("%3A", 1)[0] for line in lines if line.startswith("::error ")] == [
        "title=PLC-1 (MUST)"
    ]


def test_a_last_failed_rerun_never_passes_a_requirement_its_rerun_scenario_did_not_reach(tmp_path: Path) -> None:
    """After --lf, only the failed scenario runs again: its other requirement is not reached, not PASS."""
    run = sdk_validation_run(selection="--last-failed (1 scenarios)")
    run.scenarios = run.scenarios[1:]
    assert verdicts(run) == {"ARG-3": "notreached", "PLC-1": "failed"}
    assert "  not reached  ARG-3     MUST" in render_summary(run, color=False, verbose=False).splitlines()
