"""Reports of a run, checked on a small hand-built RunResult with one scenario per status."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import FAIL_MESSAGE, RESPONSE, make_run

import ccweb_spec
from ccweb_conformance.reports.common import totals_line
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import build_cucumber, render_cucumber
from ccweb_conformance.reports.json_report import build_json, render_json
from ccweb_conformance.reports.junit import render_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import REPORT_FORMAT_VERSION, RunResult, ScenarioResult
from ccweb_conformance.reports.output import place

ANSI = re.compile(r"\033\[[0-9;]*m")


@pytest.fixture
def run() -> RunResult:
    return make_run()


def sel6(run: RunResult) -> ScenarioResult:
    return run.scenarios[1]


# --- console -------------------------------------------------------------------------


def test_totals_line_lists_only_nonzero_optional_counts(run: RunResult) -> None:
    assert totals_line(run) == "1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s"
    run.scenarios = run.scenarios[:1]
    run.duration_s = 0.5
    assert totals_line(run) == "1 passed, 0 failed in 0.50s"


def test_summary_ends_with_the_totals_line(run: RunResult) -> None:
    text = render_summary(run, color=False, verbose=False)
    assert text.splitlines()[-1] == "1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s"
    assert text.splitlines()[0] == "ccweb_list_user_inputs conformance: FAILED"
    assert text.splitlines()[1] == "target: stdio: node server.js (stdio, protocol 2025-06-18, spec 1.0.0, kit 0.1.0)"


def test_summary_colour_only_when_asked(run: RunResult) -> None:
    plain = render_summary(run, color=False, verbose=True)
    coloured = render_summary(run, color=True, verbose=True)
    assert "\033[" not in plain
    assert "\033[31m" in coloured
    assert ANSI.sub("", coloured) == plain


def test_summary_groups_in_spec_order_with_titles(run: RunResult) -> None:
    lines = render_summary(run, color=False, verbose=False).splitlines()
    headings = [line for line in lines if line and not line.startswith(" ") and "  " in line]
    assert headings == [f"{g.id}  {g.title}" for g in ccweb_spec.groups()]
    requirement_ids = [line.split()[1] for line in lines if re.match(r"  \S", line)]
    spec_order = [r.id for g in ccweb_spec.groups() for r in ccweb_spec.requirements() if r.group == g.id]
    assert requirement_ids == spec_order


def test_summary_lists_requirement_statuses_and_failures(run: RunResult) -> None:
    lines = render_summary(run, color=False, verbose=False).splitlines()
    assert "  PASS      TOOL-1" in lines  # compact: the passing requirements of AC-1 on one line
    assert "  PASS      TOOL-1    MUST" in render_summary(run, color=False, verbose=True).splitlines()
    assert "  WARN      TOOL-4    SHOULD" in lines
    assert "  untested  TOOL-5    SHOULD" in lines
    assert "  XFAIL     UNI-1     MUST" in lines
    assert "  FAIL      UNI-2     MUST" in lines
    assert "  untested  SRC-2     MUST" in lines
    failure = "      FAIL ac03_latest_fifteen.feature::Only the latest 15 inputs: SEL-6: expected 15 inputs, got 16"
    assert lines.count(failure) == 2  # under SEL-6 and SEL-7
    assert (
        "      WARN ac01_tool_definition.feature::The tool is read-only: TOOL-4: annotations.readOnlyHint is missing"
        in lines
    )
    assert "      XPASS ac07_unicode.feature::A flag counts as two: expected failure passed: flags are broken" in lines
    assert not any("The tool is listed" in line or "XFAIL ac07" in line for line in lines)
    # a skip is a check not made: named with its reason, just above the totals
    assert lines[-2:] == [
        "SKIP ac02_which_conversation.feature::The HTTP header binds the source: needs the HTTP transport",
        "1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s",
    ]


def test_verbose_summary_shows_whole_messages_and_every_scenario(run: RunResult) -> None:
    lines = render_summary(run, color=False, verbose=True).splitlines()
    index = lines.index("      FAIL ac03_latest_fifteen.feature::Only the latest 15 inputs")
    assert lines[index + 1 : index + 4] == [
        "          SEL-6: expected 15 inputs, got 16",
        "          sent: tools/call {}",
        "          expected: the latest 15",
    ]
    assert "      PASS ac01_tool_definition.feature::The tool is listed" in lines
    xfail = lines.index("      XFAIL ac07_unicode.feature::An emoji outside the BMP counts as one")
    assert lines[xfail + 1] == "          expected failure: we count UTF-16 units until #123"


def test_summary_of_a_passing_run(run: RunResult) -> None:
    run.scenarios = [run.scenarios[0]]
    text = render_summary(run, color=False, verbose=False)
    assert text.splitlines()[0] == "ccweb_list_user_inputs conformance: PASSED"
    assert text.endswith("\n1 passed, 0 failed in 3.21s")


# --- JUnit XML -----------------------------------------------------------------------


def junit(run: RunResult, tmp_path: Path) -> ET.Element:
    path = tmp_path / "junit.xml"
    path.write_text(render_junit(run), encoding="utf-8")
    assert path.read_bytes().startswith(b"<?xml version='1.0' encoding='utf-8'?>")
    return ET.parse(path).getroot()


def case(root: ET.Element, name: str) -> ET.Element:
    found = [c for c in root.iter("testcase") if c.get("name") == name]
    assert len(found) == 1
    return found[0]


def test_junit_suites_per_feature_and_counts(run: RunResult, tmp_path: Path) -> None:
    root = junit(run, tmp_path)
    assert root.tag == "testsuites"
    assert dict(root.attrib) == {  # junit-10.xsd allows no timestamp or skipped here
        "name": "ccweb-conformance",
        "tests": "6",
        "failures": "2",
        "errors": "0",
        "time": "3.214",
    }
    suites = root.findall("testsuite")
    assert [(s.get("file"), s.get("tests"), s.get("failures"), s.get("skipped")) for s in suites] == [
        ("ac03_latest_fifteen.feature", "1", "1", "0"),  # suites with a failure first
        ("ac07_unicode.feature", "2", "1", "1"),
        ("ac01_tool_definition.feature", "2", "0", "0"),
        ("ac02_which_conversation.feature", "1", "0", "1"),
    ]
    assert suites[2].get("name") == "Tool definition"
    properties = [(p.get("name"), p.get("value")) for p in suites[0].iter("property")]
    assert properties == [  # short: what was tested with what; an option only when it was set
        ("target", "stdio: node server.js"),
        ("transport", "stdio"),
        ("protocolVersion", "2025-06-18"),
        ("specVersion", "1.0.0"),
        ("kitVersion", "0.1.0"),
    ]
    assert len(list(root.iter("testcase"))) == 6


def test_junit_failure_carries_message_and_transcript(run: RunResult, tmp_path: Path) -> None:
    testcase = case(junit(run, tmp_path), "Only the latest 15 inputs")
    assert testcase.get("classname") == "ac03_latest_fifteen.feature"
    assert testcase.get("time") == "0.750"
    failure = testcase.find("failure")
    assert failure is not None
    assert failure.get("message") == "SEL-6: expected 15 inputs, got 16"
    assert failure.get("type") == "failure"
    text = failure.text or ""
    assert text.startswith(FAIL_MESSAGE + "\n\nrequirements: SEL-6, SEL-7 (MUST)\n\ntranscript:\n")
    assert '--> {"jsonrpc":"2.0","id":7,"method":"tools/call"' in text
    assert "<-- [1.5 ms] " + json.dumps(RESPONSE) in text
    assert text.endswith("    ! bad")


def test_junit_warning_is_a_passed_case_with_a_note(run: RunResult, tmp_path: Path) -> None:
    testcase = case(junit(run, tmp_path), "The tool is read-only")
    assert [child.tag for child in testcase] == ["system-out"]
    assert testcase.findtext("system-out") == (
        "WARN (SHOULD, not failing the run): TOOL-4: annotations.readOnlyHint is missing"
    )
    assert set(testcase.attrib) == {"classname", "name", "time"}
    suite = next(s for s in junit(run, tmp_path).iter("testsuite") if s.get("name") == "Tool definition")
    properties = [(p.get("name"), p.get("value")) for p in suite.iter("property")]
    assert properties[-2:] == [
        ("warnings", "1"),
        ("warning", "The tool is read-only: TOOL-4: annotations.readOnlyHint is missing"),
    ]


def test_junit_warning_fails_when_strict(tmp_path: Path) -> None:
    root = junit(make_run(strict=True), tmp_path)
    failure = case(root, "The tool is read-only").find("failure")
    assert failure is not None
    assert failure.get("type") == "warning"
    assert root.get("failures") == "3"


def test_junit_xfail_xpass_and_skip(run: RunResult, tmp_path: Path) -> None:
    root = junit(run, tmp_path)
    xfail = case(root, "An emoji outside the BMP counts as one").find("skipped")
    assert xfail is not None
    assert xfail.attrib == {"type": "xfail", "message": "expected failure: we count UTF-16 units until #123"}
    assert xfail.text == "UNI-1: expected 1, got 2"
    xpass = case(root, "A flag counts as two").find("failure")
    assert xpass is not None
    assert xpass.attrib == {"message": "expected failure passed: flags are broken", "type": "xpass"}
    skipped = case(root, "The HTTP header binds the source").find("skipped")
    assert skipped is not None
    assert skipped.attrib == {"message": "needs the HTTP transport"}
    assert [child.tag for child in case(root, "The tool is listed")] == []


def test_junit_is_well_formed_whatever_the_server_sent(run: RunResult, tmp_path: Path) -> None:
    sel6(run).message = "SEL-6: got \x00\x1b[31m and \ud800 and 🙂"
    sel6(run).transcript[0].received_text = "\x07bell"
    failure = case(junit(run, tmp_path), "Only the latest 15 inputs").find("failure")
    assert failure is not None
    assert failure.get("message") == "SEL-6: got \\x00\\x1b[31m and \\ud800 and 🙂"
    assert "<-- [1.5 ms] \\x07bell" in (failure.text or "")


# --- JSON ----------------------------------------------------------------------------


def test_report_schema_is_a_valid_2020_12_schema_with_an_id() -> None:
    schema = report_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/report.schema.json")


def test_json_report_validates_against_its_schema(run: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(render_json(run), encoding="utf-8")
    report = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator(report_schema()).validate(report)
    assert report == build_json(run)


def test_json_report_values(run: RunResult) -> None:
    report = build_json(run)
    assert {k: v for k, v in report.items() if k not in ("requirements", "scenarios")} == {
        "formatVersion": REPORT_FORMAT_VERSION,
        "kitVersion": "0.1.0",
        "specVersion": "1.0.0",
        "target": "stdio: node server.js",
        "transport": "stdio",
        "protocolVersion": "2025-06-18",
        "protocolVersions": [],
        "oneEraReason": None,
        "startedAt": "2026-12-03T10:10:00Z",
        "durationSeconds": 3.214,
        "strict": False,
        "outcome": "failed",
        "selection": None,
        "interrupted": None,
        "stopped": None,
        "leftoverProcesses": [],
        "processes": {"started": 0, "kinds": []},
        "waits": {},
        "configFile": None,
        "expectedFailuresFile": None,
        "staleExpectedFailures": [],
        "failureGroups": [],
        "counts": {
            "total": 6, "passed": 1, "failed": 1, "warning": 1, "xfailed": 1, "xpassed": 1, "skipped": 1, "notrun": 0
        },
    }
    assert [r["id"] for r in report["requirements"]] == [r.id for r in ccweb_spec.requirements()]
    by_id = {r["id"]: r for r in report["requirements"]}
    assert {k: v for k, v in by_id["SEL-7"].items() if k not in ("statement", "statementZh")} == {
        "id": "SEL-7",
        "level": "MUST",
        "group": "AC-3",
        "status": "failed",
        "scenarios": ["ac03_latest_fifteen.feature::Only the latest 15 inputs"],
    }
    assert by_id["TOOL-4"]["status"] == "warning"
    assert by_id["UNI-1"]["status"] == "xfailed"
    assert by_id["SRC-2"]["status"] == "untested"


def test_json_scenario_entries(run: RunResult) -> None:
    scenarios = build_json(run)["scenarios"]
    assert [s["status"] for s in scenarios] == ["passed", "failed", "warning", "xfailed", "xpassed", "skipped"]
    failed = scenarios[1]
    assert {k: v for k, v in failed.items() if k not in ("steps", "transcript")} == {
        "id": "ac03_latest_fifteen.feature::Only the latest 15 inputs",
        "feature": "Latest fifteen",
        "file": "ac03_latest_fifteen.feature",
        "name": "Only the latest 15 inputs",
        "line": 10,
        "tags": ["SEL-6", "SEL-7", "smoke"],
        "requirements": ["SEL-6", "SEL-7"],
        "failedRequirements": ["SEL-6", "SEL-7"],
        "level": "MUST",
        "status": "failed",
        "message": FAIL_MESSAGE,
        "durationSeconds": 0.75,
        "expectedFailureReason": None,
        "diagnosis": None,
    }
    assert failed["transcript"] == [sel6(run).transcript[0].to_json()]
    assert failed["steps"][2] == {"keyword": "Then", "text": "step 3", "status": "failed", "durationSeconds": 0.25}
    assert scenarios[3]["expectedFailureReason"] == "we count UTF-16 units until #123"
    assert scenarios[2]["level"] == "SHOULD"


def test_json_outcome_passed_and_null_protocol(run: RunResult, tmp_path: Path) -> None:
    run.scenarios = [run.scenarios[0], run.scenarios[2]]
    run.protocol_version = None
    report = build_json(run)
    assert report["outcome"] == "passed"
    Draft202012Validator(report_schema()).validate(report)
    run.strict = True
    assert build_json(run)["outcome"] == "failed"


def test_json_survives_undecodable_text(run: RunResult, tmp_path: Path) -> None:
    sel6(run).transcript[0].received_text = "bad \udcff byte"
    path = tmp_path / "report.json"
    path.write_text(render_json(run), encoding="utf-8")
    report = json.loads(path.read_text(encoding="utf-8"))
    assert report["scenarios"][1]["transcript"][0]["receivedText"] == "bad \ufffd byte"
    assert report["scenarios"][1]["transcript"][0]["receivedTextBase64"] == "YmFkIO2zvyBieXRl"


# --- Cucumber JSON -------------------------------------------------------------------


def element(features: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [e for f in features for e in f["elements"] if e["name"] == name]
    assert len(found) == 1
    return found[0]


def test_cucumber_structure(run: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "cucumber.json"
    path.write_text(render_cucumber(run), encoding="utf-8")
    features = json.loads(path.read_text(encoding="utf-8"))
    assert features == build_cucumber(run)
    assert [f["uri"] for f in features] == [
        "ac01_tool_definition.feature",
        "ac03_latest_fifteen.feature",
        "ac07_unicode.feature",
        "ac02_which_conversation.feature",
    ]
    assert {k: features[0][k] for k in ("id", "keyword", "name", "line")} == {
        "id": "tool-definition",
        "keyword": "Feature",
        "name": "Tool definition",
        "line": 1,
    }
    assert [e["name"] for e in features[0]["elements"]] == ["The tool is listed", "The tool is read-only"]
    passed = features[0]["elements"][0]
    assert passed == {
        "id": "tool-definition;the-tool-is-listed",
        "keyword": "Scenario",
        "type": "scenario",
        "name": "The tool is listed",
        "description": "",
        "line": 10,
        "tags": [{"name": "@TOOL-1", "line": 9}, {"name": "@smoke", "line": 9}],
        "steps": [
            {
                "keyword": keyword,
                "name": name,
                "line": 10,
                "match": {"location": "ac01_tool_definition.feature:10"},
                "result": {"status": "passed", "duration": 250_000_000},
                "arguments": [],
            }
            for keyword, name in (("Given ", "step 1"), ("When ", "step 2"))
        ],
    }
    jvm = build_cucumber(run, "jvm")[0]["elements"][0]
    assert jvm["tags"] == [{"name": "@TOOL-1"}, {"name": "@smoke"}]
    assert "arguments" not in jvm["steps"][0]


def test_cucumber_failed_step_has_message_and_transcript(run: RunResult) -> None:
    failed = element(build_cucumber(run, "jvm"), "Only the latest 15 inputs")
    step = failed["steps"][2]
    assert step["keyword"] == "Then "
    assert step["result"]["status"] == "failed"
    assert step["result"]["error_message"].startswith(FAIL_MESSAGE + '\n\ntranscript:\n--> {"jsonrpc":"2.0","id":7')
    assert "embeddings" not in step  # Cucumber's converter refuses them (its cucumber-jvm 7 schema)
    assert "after" not in failed
    js_step = element(build_cucumber(run, "js"), "Only the latest 15 inputs")["steps"][2]
    assert "embeddings" not in js_step
    assert js_step["result"]["error_message"].startswith(FAIL_MESSAGE + "\n\ntranscript:\n--> ")


def test_cucumber_warning_xfail_xpass_skip(run: RunResult) -> None:
    features = build_cucumber(run)
    warning = element(features, "The tool is read-only")["steps"][1]["result"]
    assert warning["status"] == "pending"
    assert warning["error_message"] == "warning (SHOULD): TOOL-4: annotations.readOnlyHint is missing"
    xfail = element(features, "An emoji outside the BMP counts as one")["steps"][1]["result"]
    assert xfail["status"] == "skipped"
    assert xfail["error_message"] == "expected failure: we count UTF-16 units until #123\nUNI-1: expected 1, got 2"
    xpass = element(features, "A flag counts as two")
    assert [s["result"]["status"] for s in xpass["steps"]] == ["passed", "passed", "failed"]
    assert xpass["steps"][2] == {
        "match": {"location": "ccweb-conformance"},
        "result": {"status": "failed", "duration": 0, "error_message": "expected failure passed: flags are broken"},
        "keyword": "After",
        "hidden": True,
    }
    assert element(build_cucumber(run, "ruby"), "A flag counts as two")["after"] == [
        {
            "match": {"location": "ccweb-conformance"},
            "result": {"status": "failed", "duration": 0, "error_message": "expected failure passed: flags are broken"},
        }
    ]
    skipped = element(features, "The HTTP header binds the source")
    assert skipped["steps"][0]["result"]["status"] == "skipped"


def test_cucumber_warning_fails_when_strict() -> None:
    features = build_cucumber(make_run(strict=True))
    result = element(features, "The tool is read-only")["steps"][1]["result"]
    assert result["status"] == "failed"


def test_cucumber_failure_without_a_failed_step_gets_a_hook(run: RunResult) -> None:
    sel6(run).steps = [dataclasses.replace(step, status="passed") for step in sel6(run).steps]
    failed = element(build_cucumber(run, "jvm"), "Only the latest 15 inputs")
    (hook,) = failed["after"]
    assert hook["result"]["status"] == "failed"
    assert hook["result"]["error_message"].startswith(FAIL_MESSAGE + "\n\ntranscript:\n--> ")


def test_cucumber_failure_without_steps_gets_one_step_carrying_it(run: RunResult) -> None:
    """A run check without Gherkin steps (handshake, audit, fuzz) shows as one step, never as pending."""
    sel6(run).steps = []
    failed = element(build_cucumber(run, "jvm"), "Only the latest 15 inputs")
    (step,) = failed["steps"]
    assert (step["keyword"], step["name"], step["result"]["status"]) == ("Then ", "Only the latest 15 inputs", "failed")
    assert step["result"]["error_message"].startswith(FAIL_MESSAGE + "\n\ntranscript:\n--> ")
    assert "after" not in failed


# --- Markdown ------------------------------------------------------------------------


def test_markdown_header(run: RunResult) -> None:
    lines = render_markdown(run).splitlines()
    assert lines[:5] == [
        "## ccweb_list_user_inputs conformance: ❌ failed",
        "",
        "**Target:** `stdio: node server.js` (stdio)  ",
        "**Protocol:** `2025-06-18` · **Spec:** `1.0.0` · **Kit:** `0.1.0`  ",
        "**Scenarios:** 1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s",
    ]
    run.scenarios = [run.scenarios[0]]
    assert render_markdown(run).startswith("## ccweb_list_user_inputs conformance: ✅ passed\n")


def test_markdown_table_per_group(run: RunResult) -> None:
    text = render_markdown(run)
    assert text.count("| Requirement | Level | Status | Scenarios |") == len(ccweb_spec.groups())
    section = text.split("### AC-3: By default only the latest 15 user inputs, oldest to newest\n\n")[1]
    assert section.split("\n\n")[0].splitlines() == [
        "| Requirement | Level | Status | Scenarios |",
        "|---|---|---|---|",
        "| SEL-6 | MUST | ❌ fail | 1 |",
        "| SEL-7 | MUST | ❌ fail | 1 |",
    ]
    lines = text.splitlines()
    for row in (
        "| TOOL-1 | MUST | ✅ pass | 1 |",
        "| TOOL-4 | SHOULD | ⚠️ warning | 1 |",
        "| UNI-1 | MUST | 🔶 xfail | 1 |",
        "| UNI-2 | MUST | ❌ fail | 1 |",
        "| SRC-2 | MUST | ⚪ untested | 0 |",
    ):
        assert row in lines


def test_markdown_details_for_failures_and_warnings(run: RunResult) -> None:
    text = render_markdown(run)
    failures = text.split("### Failures\n")[1].split("### Warnings\n")[0]
    assert failures.strip().startswith(
        "<details>\n<summary>ac03_latest_fifteen.feature::Only the latest 15 inputs (SEL-6, SEL-7)</summary>\n\n"
        f"```text\n{FAIL_MESSAGE}\n```\n\n</details>"
    )
    assert "<summary>ac07_unicode.feature::A flag counts as two (UNI-2)</summary>" in failures
    warnings = text.split("### Warnings\n")[1]
    assert "```text\nTOOL-4: annotations.readOnlyHint is missing\n```" in warnings
    assert text.endswith(
        "### Expected failures\n\n"
        "- `ac07_unicode.feature::An emoji outside the BMP counts as one`: we count UTF-16 units until #123\n"
    )


def test_markdown_truncates_and_fences_safely(run: RunResult) -> None:
    sel6(run).message = "SEL-6: ```" + "x" * 5000
    text = render_markdown(run)
    assert "````text\nSEL-6: ```" in text
    assert "\n... [3010 more characters]\n````\n" in text
    assert "x" * 5000 not in text


def test_markdown_write_and_append(run: RunResult, tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    path.write_text("# earlier step\n", encoding="utf-8")
    place(render_markdown(run), path, append=True)
    assert path.read_text(encoding="utf-8") == "# earlier step\n\n" + render_markdown(run)
    place(render_markdown(run), path)
    assert path.read_text(encoding="utf-8") == render_markdown(run)
