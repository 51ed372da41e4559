"""Identical failures are grouped in every report: one block, every scenario still named (issue 35).

A server that logs one line to stdout inside its tool failed 169 scenarios with the same block; its
Markdown report held 48 copies of it (92 KB). The group key is what the failure says (status,
check, first difference, hint), not whom it is charged to nor the scenario's own data.
"""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET

from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import make_run
from runner.reports.test_failure_block_zh import a_failure

from ccweb_conformance.reports.failure_groups import failure_blocks, failure_groups
from ccweb_conformance.reports.json_report import build_json
from ccweb_conformance.reports.junit import build_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import FailureDetail, RunResult, ScenarioResult, StoredConversation

STRAY = "tools/call: the server wrote a line that is not JSON: 'listing user inputs\\n' (garbage)"


def stray(number: int, requirements: tuple[str, ...] = ("SEL-6",)) -> ScenarioResult:
    """One scenario failed by the stray line: its own name, conversation and arguments; the same check."""
    detail = FailureDetail(
        check=STRAY,
        arguments={"conversationId": f"c-{number}"},
        method="tools/call",
        conversations=(StoredConversation(f"c-{number}", "alpha", [{"role": "user", "content": f"input {number}"}]),),
    )
    return dataclasses.replace(
        a_failure(), scenario=f"S{number}", requirements=requirements, detail=detail, reproducer=f"rerun -k s{number}"
    )


def stray_run(count: int) -> RunResult:
    run = make_run()
    run.scenarios = [stray(n, ("SEL-6",) if n % 2 else ("SEL-6", "SEL-7")) for n in range(1, count + 1)]
    run.scenarios.insert(2, a_failure(scenario="Different"))
    return run


def test_failures_that_say_the_same_are_one_group_whatever_they_are_charged_to() -> None:
    groups = failure_groups(stray_run(4).scenarios)
    assert [(g.number, [s.scenario for s in g.scenarios]) for g in groups] == [
        (1, ["S1", "S2", "S3", "S4"]),
        (2, ["Different"]),
    ]


def test_the_console_shows_one_block_per_group_and_names_the_others() -> None:
    lines = failure_blocks(stray_run(9))
    assert lines[0] == "Failures (10)"
    assert [line for line in lines if line.startswith("FAIL ")] == ["FAIL f.feature::S1", "FAIL f.feature::Different"]
    start = lines.index("    the same failure in 8 more scenarios:")
    assert lines[start + 1 : start + 8] == [
        "      f.feature::S2",
        "      f.feature::S3",
        "      f.feature::S4",
        "      f.feature::S5",
        "      f.feature::S6",
        "      … and 3 more (-v names them all)",
        "",
    ]
    verbose = failure_blocks(stray_run(9), verbose=True)
    named = [line for line in verbose if line.startswith("      f.feature::S")]
    assert named == [f"      f.feature::S{n}" for n in range(2, 10)]


def test_the_console_in_chinese_names_the_group() -> None:
    lines = failure_blocks(stray_run(2), language="zh-CN")
    assert "    另有 1 个场景以同样方式失败：" in lines  # noqa: RUF001 (Chinese punctuation)


def test_markdown_has_one_section_per_group_and_stays_small() -> None:
    text = render_markdown(stray_run(48))
    assert text.count("<details>") == 2
    assert text.count("rerun: `rerun -k s1`") == 1
    same = next(line for line in text.splitlines() if line.startswith("the same failure in"))
    assert same == "the same failure in 47 more scenarios: " + ", ".join(f"`f.feature::S{n}`" for n in range(2, 49))
    assert len(text.encode("utf-8")) < 12_000, len(text.encode("utf-8"))


def test_junit_keeps_every_failure_and_points_repeats_to_the_first() -> None:
    root = build_junit(stray_run(3))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert sorted(cases) == ["Different", "S1", "S2", "S3"]
    first, second = cases["S1"].find("failure"), cases["S2"].find("failure")
    assert first is not None and second is not None
    assert (first.get("message"), second.get("message")) == (f"SEL-6: {STRAY}", f"SEL-6, SEL-7: {STRAY}")
    assert (second.text or "").splitlines() == [
        "the same failure as f.feature::S1: its testcase holds the failure block and the transcript",
        "",
        "requirements: SEL-6, SEL-7 (MUST)",
        "rerun: rerun -k s2",
    ]
    assert (first.text or "").splitlines()[0] == "FAIL f.feature::S1"


def test_json_keeps_every_scenario_and_points_to_its_group() -> None:
    report = json.loads(json.dumps(build_json(stray_run(3))))
    Draft202012Validator(report_schema()).validate(report)
    assert [(g["group"], g["status"], g["scenarios"]) for g in report["failureGroups"]] == [
        (1, "failed", ["f.feature::S1", "f.feature::S2", "f.feature::S3"]),
        (2, "failed", ["f.feature::Different"]),
    ]
    assert report["failureGroups"][0]["headline"] == f"SEL-6: {STRAY}"
    assert [s["diagnosis"]["group"] for s in report["scenarios"]] == [1, 1, 2, 1]
    assert [len(s["diagnosis"]["block"]) > 3 for s in report["scenarios"]] == [True] * 4


def test_junit_puts_failures_before_passes_inside_a_suite() -> None:
    run = make_run()
    passed = dataclasses.replace(run.scenarios[0], feature_file="f.feature", scenario="P")
    run.scenarios = [passed, a_failure(scenario="F1"), dataclasses.replace(passed, scenario="P2"), a_failure()]
    suite = build_junit(run).find("testsuite")
    assert suite is not None
    assert [c.get("name") for c in suite.iter("testcase")] == ["F1", "S", "P", "P2"]
    ET.tostring(suite)


def test_failures_whose_differences_differ_past_the_first_are_not_grouped() -> None:
    one = a_failure(scenario="A")
    assert one.detail is not None
    other_detail = dataclasses.replace(one.detail, actual=[{"content": "z"}])
    same_first = dataclasses.replace(one.detail, expected=[{"content": "a"}, {"content": "c"}])
    groups = failure_groups([one, a_failure(scenario="B"), a_failure(scenario="C", detail=other_detail),
                             a_failure(scenario="D", detail=same_first)])
    assert [[s.scenario for s in g.scenarios] for g in groups] == [["A", "B"], ["C"], ["D"]]
