"""Every report says which protocol eras the run tested (D-16)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import make_run

from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import build_cucumber
from ccweb_conformance.reports.eras_tested import protocol_shown
from ccweb_conformance.reports.json_report import build_json
from ccweb_conformance.reports.junit import render_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import RunResult

BOTH = "2026-07-28 + 2025-11-25 (both eras tested)"
ONE = "2025-11-25 (one era tested: the server speaks no other)"
REQUESTED = "2026-07-28 (one era tested: --protocol asked for it)"


def both_eras() -> RunResult:
    run = make_run()
    run.protocol_version = "2026-07-28"
    run.eras = ["2026-07-28", "2025-11-25"]
    return run


def one_era(reason: str, version: str) -> RunResult:
    run = make_run()
    run.protocol_version = version
    run.eras = [version]
    run.one_era_reason = reason
    return run


@pytest.mark.parametrize(
    ("run", "shown"),
    [(both_eras(), BOTH), (one_era("server", "2025-11-25"), ONE), (one_era("requested", "2026-07-28"), REQUESTED)],
)
def test_console_and_markdown_name_the_eras(run: RunResult, shown: str) -> None:
    assert f"protocol {shown}, spec 1.0.0" in render_summary(run, color=False, verbose=False)
    assert f"**Protocol:** `{shown}`" in render_markdown(run)


def test_chinese_reports_name_the_eras() -> None:
    assert protocol_shown(both_eras(), None) == BOTH
    summary = render_summary(one_era("server", "2025-11-25"), color=False, verbose=False, language="zh-CN")
    assert "协议 2025-11-25（只测试了一个协议时代：服务端不支持另一个）" in summary  # noqa: RUF001
    assert "2026-07-28 + 2025-11-25（两个协议时代都已测试）" in render_markdown(both_eras(), "zh-CN")  # noqa: RUF001


def test_json_junit_and_cucumber_name_the_eras(tmp_path: Path) -> None:
    report = build_json(both_eras())
    Draft202012Validator(report_schema()).validate(json.loads(json.dumps(report)))
    assert (report["protocolVersion"], report["protocolVersions"], report["oneEraReason"]) == (
        "2026-07-28",
        ["2026-07-28", "2025-11-25"],
        None,
    )
    assert build_json(one_era("server", "2025-11-25"))["oneEraReason"] == "server"
    (tmp_path / "junit.xml").write_text(render_junit(both_eras()), encoding="utf-8")
    properties = {p.get("name"): p.get("value") for p in ET.parse(tmp_path / "junit.xml").getroot().iter("property")}
    assert properties["protocolVersions"] == "2026-07-28 2025-11-25"
    features = build_cucumber(both_eras())
    assert {feature["description"] for feature in features} == {f"protocol {BOTH}"}


def test_a_run_that_negotiated_nothing_says_so() -> None:
    run = make_run()
    run.protocol_version = None
    assert protocol_shown(run) == "not negotiated"
