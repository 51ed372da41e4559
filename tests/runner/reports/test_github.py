"""GitHub annotations: one workflow command per failed requirement, escaped as GitHub reads them, bounded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from runner.reports.sample_run import scenario

import ccweb_spec
from ccweb_conformance.commands.report_formats import write_reports
from ccweb_conformance.options import resolve
from ccweb_conformance.reports.github import annotation_lines, escape_data, escape_property, is_step_summary
from ccweb_conformance.reports.model import FailureDetail, RunResult, StoredConversation
from ccweb_conformance.values import resolve_values

EXPECTED = {"totalChars": 1, "items": [{"content": "😀", "contentChars": 1, "originalChars": 1}]}
ACTUAL = {"totalChars": 2, "items": [{"content": "😀", "contentChars": 2, "originalChars": 2}]}
HINT = (
    "lengths look like UTF-16 code units (JavaScript's text.length): count code points, e.g. [...text].length, "
    'and cut with Array.from(text).slice(0, n).join("")'
)


def _run(*extra: object) -> RunResult:
    stored = StoredConversation("c-1", "alpha", [{"role": "user", "content": "😀"}])
    detail = FailureDetail("items differ", EXPECTED, ACTUAL, True, {"conversationId": "c-1"}, "tools/call",
                           conversations=(stored,))
    failed = scenario("ac07_unicode.feature", "Characters outside the BMP count as one", ("UNI-1",), "failed",
                      detail=detail, message="items differ: ...",
                      reproducer="ccweb-conformance run --stdio 'node s.js' -k test_characters_outside")
    warned = scenario("ac01_tool_definition.feature", "The tool is read-only", ("TOOL-4",), "warning",
                      message="TOOL-4: annotations.readOnlyHint is missing\nmore")
    passed = scenario("ac03_latest_fifteen.feature", "Fifteen", ("SEL-6",), "passed")
    return RunResult(
        kit_version="0.1.0", spec_version="1.0.0", target="stdio: x", transport="stdio", protocol_version="2025-06-18",
        started_at="2026-12-04T10:00:00Z", duration_s=1.0, strict=False, scenarios=[passed, failed, warned, *extra],
    )


def test_one_error_per_failed_requirement_and_one_warning_per_should() -> None:
    assert annotation_lines(_run()) == [
        "::error file=features/ccweb_features/ac07_unicode.feature,line=10,"
        "title=UNI-1 (MUST)%3A Lengths are Unicode code points%3A a character outside the BMP (an emoji)…"
        "::ac07_unicode.feature::Characters outside the BMP count as one"
        "%0AUNI-1: items differ: $.totalChars: expected 1, got 2 (+2)"
        f"%0Ahint: {HINT}"
        "%0Arerun: ccweb-conformance run --stdio 'node s.js' -k test_characters_outside",
        "::warning file=features/ccweb_features/ac01_tool_definition.feature,line=10,"
        "title=TOOL-4 (SHOULD)%3A The tool declares annotations.readOnlyHint true."
        "::ac01_tool_definition.feature::The tool is read-only"
        "%0ATOOL-4: annotations.readOnlyHint is missing%0Amore",
    ]


def test_nothing_to_annotate_when_every_requirement_passed() -> None:
    run = _run()
    run.scenarios = run.scenarios[:1]
    assert annotation_lines(run) == []


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("50%\r\nnext: a, b") == "50%25%0D%0Anext: a, b"
    assert escape_property("50%\r\nnext: a, b") == "50%25%0D%0Anext%3A a%2C b"


def test_server_text_is_neutralised_and_one_line() -> None:
    """A server's message cannot end the command early nor inject one: control characters escaped, LF encoded."""
    hostile = scenario("ac05_errors.feature", "Hostile", ("ERR-1",), "failed",
                       message="bad\n::add-mask::x\r\x1b[2Jdone 100%")
    run = _run(hostile)
    (line,) = [a for a in annotation_lines(run) if "ac05_errors" in a]
    assert line.endswith("::ac05_errors.feature::Hostile%0Abad%0A\\x3a:add-mask::x\\x0d\\x1b[2Jdone 100%25")
    assert "\n" not in line and "\r" not in line


def test_at_most_ten_errors_then_one_line_counting_the_rest() -> None:
    musts = [r.id for r in ccweb_spec.requirements() if r.level == "MUST"][:13]
    failing = [
        scenario("ac03_latest_fifteen.feature", f"S{i}", (r,), "failed", message="no") for i, r in enumerate(musts)
    ]
    run = _run(*failing)
    lines = annotation_lines(run)
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert "ccweb-conformance: 4 more failed requirements not annotated (see the reports)" in lines
    assert lines[-1].startswith("::warning ")


def test_the_step_summary_is_recognised_by_path_or_by_file(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("")
    (tmp_path / "link.md").symlink_to(summary)
    environ = {"GITHUB_STEP_SUMMARY": str(summary)}
    assert is_step_summary(summary, environ)
    assert is_step_summary(tmp_path / "link.md", environ)
    assert not is_step_summary(tmp_path / "other.md", environ)
    assert not is_step_summary(summary, {})


def test_the_markdown_report_appends_to_the_step_summary(tmp_path: Path, monkeypatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("## An earlier step\n", encoding="utf-8")
    inode = summary.stat().st_ino
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    options = dataclasses.replace(resolve({}), markdown=summary)
    assert write_reports(_run(), resolve_values(options).reports, "run", language="en")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## An earlier step\n\n## ccweb_list_user_inputs conformance: ")
    assert summary.stat().st_ino == inode
    assert "UNI-1" in text


def test_another_markdown_path_is_still_replaced(tmp_path: Path, monkeypatch) -> None:
    report = tmp_path / "report.md"
    report.write_text("old text\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    options = dataclasses.replace(resolve({}), markdown=report)
    assert write_reports(_run(), resolve_values(options).reports, "run", language="en")
    assert "old text" not in report.read_text(encoding="utf-8")
