"""The diagnosis reaches CI: JUnit's failure message, the JSON report and the Markdown summary carry it."""

from __future__ import annotations

from runner.reports.sample_run import scenario

from ccweb_conformance.reports.failure_block import headline
from ccweb_conformance.reports.json_report import build_json
from ccweb_conformance.reports.junit import build_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import FailureDetail, RunResult, StoredConversation

EXPECTED = {"totalChars": 1, "items": [{"content": "😀", "contentChars": 1, "originalChars": 1}]}
ACTUAL = {"totalChars": 2, "items": [{"content": "😀", "contentChars": 2, "originalChars": 2}]}
HEADLINE = "UNI-1: items differ: $.totalChars: expected 1, got 2 (+2)"
HINT = (
    "lengths look like UTF-16 code units (JavaScript's text.length): count code points, e.g. [...text].length, "
    'and cut with Array.from(text).slice(0, n).join("")'
)


def _run() -> RunResult:
    stored = StoredConversation("c-1", "alpha", [{"role": "user", "content": "😀"}])
    detail = FailureDetail("items differ", EXPECTED, ACTUAL, True, {"conversationId": "c-1"}, "tools/call",
                           conversations=(stored,))
    failed = scenario("ac07_unicode.feature", "Characters outside the BMP count as one", ("UNI-1",), "failed",
                      detail=detail, message="items differ: ...")
    passed = scenario("ac03_latest_fifteen.feature", "Fifteen", ("SEL-6",), "passed")
    return RunResult(
        kit_version="0.1.0", spec_version="1.0.0", target="stdio: x", transport="stdio", protocol_version="2025-06-18",
        started_at="2026-12-04T10:00:00Z", duration_s=1.0, strict=False, scenarios=[passed, failed],
    )


def test_junit_failure_message_is_the_headline_and_the_hint():
    root = build_junit(_run())
    failure = root.find(".//testcase[@name='Characters outside the BMP count as one']/failure")
    assert failure is not None
    assert failure.get("message") == f"{HEADLINE} | hint: {HINT}"
    assert failure.text is not None
    assert "    differences  $.totalChars: expected 1, got 2" in failure.text
    assert f"    hint         {HINT}" in failure.text


def test_json_report_carries_headline_block_and_hint():
    failed = build_json(_run())["scenarios"][1]
    assert failed["diagnosis"]["headline"] == HEADLINE
    assert failed["diagnosis"]["hint"] == HINT
    assert failed["diagnosis"]["block"][0] == "FAIL ac07_unicode.feature::Characters outside the BMP count as one"


def test_markdown_lists_the_failures_before_the_requirement_tables():
    text = render_markdown(_run())
    failure = text.index(f"- **ac07_unicode.feature::Characters outside the BMP count as one**: `{HEADLINE}`")
    assert failure < text.index("| UNI-1 | MUST |")
    assert f"  hint: {HINT}" in text


def test_the_headline_names_the_requirement_once() -> None:
    """A check whose sentence starts with its requirement ("RO-1: the call changed ...") is not prefixed twice."""
    detail = FailureDetail(
        "RO-1: the call changed files of the sessions directory (the tool is read-only)", "same", "moved", False
    )
    failed = scenario("ac09_read_only.feature", "A successful call changes nothing", ("RO-1",), "failed", detail=detail)
    assert headline(failed) == (
        "RO-1: the call changed files of the sessions directory (the tool is read-only): "
        '$: expected "same", got "moved"'
    )
