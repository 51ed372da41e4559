# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The failure section says what it holds, and the session dump names only code points it shows."""

from __future__ import annotations

import pytest
from runner.reports.sample_run import scenario

from ccweb_conformance.reports.failure_block import scenario_block
from ccweb_conformance.reports.failure_groups import failure_blocks
from ccweb_conformance.reports.model import FailureDetail, RunResult, StoredConversation

HEADINGS = {
    ("failed",): ("Failures (1)", "失败（1）"),
    ("warning",): ("Warnings (1)", "警告（1）"),
    ("failed", "warning"): ("Failures and warnings (2: 1 failed, 1 warnings)", "失败与警告（2：1 个失败，1 个警告）"),
}


def _run(*statuses: str) -> RunResult:
    scenarios = [
        scenario("ac03_latest_fifteen.feature", f"Scenario {i}", ("SEL-6",), status, detail=FailureDetail("it"))
        for i, status in enumerate(statuses)
    ]
    return RunResult(
        kit_version="0.1.0", spec_version="1.0.0", target="stdio: x", transport="stdio", protocol_version="2025-06-18",
        started_at="2026-12-04T10:00:00Z", duration_s=1.0, strict=False, scenarios=scenarios,
    )


@pytest.mark.parametrize("statuses", sorted(HEADINGS))
def test_the_heading_names_failures_warnings_or_both(statuses):
    english, chinese = HEADINGS[statuses]
    assert failure_blocks(_run(*statuses))[0] == english
    assert failure_blocks(_run(*statuses), language="zh-CN")[0] == chinese


def _stored_line(content: str, language: str = "en") -> str:
    stored = StoredConversation("c-1", "alpha", [{"role": "user", "content": content}])
    detail = FailureDetail("x", conversations=(stored,))
    result = scenario("ac07_unicode.feature", "S", ("UNI-1",), "failed", detail=detail)
    return next(line for line in scenario_block(result, language) if "[0] user" in line).strip()


def test_code_points_past_the_preview_are_not_listed():
    text = "earlier input 0: keep the public API stable and add tests before you sign off; 用户 要求"
    assert _stored_line(text) == (
        '[0] user "earlier input 0: keep the public API stable and add tests be"…(+24) (code points: 84)'
    )
    assert _stored_line(text, "zh-CN") == (
        '[0] user "earlier input 0: keep the public API stable and add tests be"…(+24)（84 个码点）'
    )


def test_code_points_of_the_preview_are_listed():
    assert _stored_line("😀 ok") == '[0] user "😀 ok" (U+1F600; code points: 4, UTF-16 units: 5)'
    assert _stored_line("😀 ok", "zh-CN") == '[0] user "😀 ok"（U+1F600；4 个码点，5 个 UTF-16 码元）'
