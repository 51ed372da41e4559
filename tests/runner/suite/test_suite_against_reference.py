"""The whole suite passes against the reference: every transport, both MCP eras."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from suite_size import ALL_PASSED, ALL_PASSED_HTTP, ALL_PASSED_STDIO

from ccweb_conformance.cli import main

pytestmark = pytest.mark.slow

REFERENCE = f"{shlex.quote(sys.executable)} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}"
HTTP_CMD = f"{REFERENCE} --http --port {{port}}"
HTTP_URL = "http://127.0.0.1:{port}/mcp"
ERA_VERSIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
NOT_RUN = {"http": {"PROTO-5", "PROTO-6"}, "in-process": {"PROTO-6"}, "stdio": set()}
"""Requirements of stdio's own rules no scenario runs on that transport: untested, never passed."""


def run_report(tmp_path: Path, *args: str) -> tuple[int, dict]:
    report = tmp_path / "report.json"
    code = main(["run", *args, "--json", str(report)])
    return code, json.loads(report.read_text(encoding="utf-8"))


def assert_all_passed(code: int, report: dict, transport: str, version: str) -> None:
    expected = {"http": ALL_PASSED_HTTP, "stdio": ALL_PASSED_STDIO}.get(transport, ALL_PASSED)
    assert report["counts"] == expected
    assert (code, report["outcome"], report["transport"], report["protocolVersion"]) == (
        0,
        "passed",
        transport,
        version,
    )
    untested = {r["id"] for r in report["requirements"] if r["status"] == "untested"}
    assert (untested, {r["status"] for r in report["requirements"]} - {"untested"}) == (NOT_RUN[transport], {"passed"})


@pytest.fixture(scope="module")
def console_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], dict]:
    """One whole in-process run in the 2026-07-28 era, as a user starts it: its console and its JSON report."""
    report = tmp_path_factory.mktemp("console") / "report.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--in-process", "--protocol", "2026-07-28"]
    completed = subprocess.run(
        [*command, "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return completed, json.loads(report.read_text(encoding="utf-8"))


def test_in_process_legacy(tmp_path):
    code, report = run_report(tmp_path, "--in-process", "--protocol", "legacy")
    assert_all_passed(code, report, "in-process", ERA_VERSIONS["legacy"])


def test_in_process_2026(console_run):
    completed, report = console_run
    assert_all_passed(completed.returncode, report, "in-process", ERA_VERSIONS["2026-07-28"])


def test_stdio_legacy(tmp_path):
    code, report = run_report(tmp_path, "--stdio", REFERENCE, "--protocol", "legacy")
    assert_all_passed(code, report, "stdio", ERA_VERSIONS["legacy"])


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_http_started_by_the_runner(tmp_path, era):
    code, report = run_report(tmp_path, "--http-cmd", HTTP_CMD, "--url", HTTP_URL, "--protocol", era)
    assert_all_passed(code, report, "http", ERA_VERSIONS[era])


def test_default_target_is_the_bundled_reference_over_stdio_with_auto_detection(tmp_path):
    """Also the whole suite over stdio in the 2026-07-28 era: auto settles on it with the reference.

    (Forcing that era over stdio is checked at the transport level, in test_transport_reference.)
    """
    code, report = run_report(tmp_path)
    assert_all_passed(code, report, "stdio", "2026-07-28")
    assert (report["protocolVersions"], report["oneEraReason"]) == (["2026-07-28", "2025-11-25"], None)  # D-16
    assert "real age" not in report["waits"]  # the aged conversation was written when the run started (REG-2)


def test_the_console_summary_is_grouped_by_criterion_and_ends_with_the_totals(console_run):
    completed, _ = console_run
    lines = completed.stdout.splitlines()
    assert completed.returncode == 0
    assert lines[0] == "ccweb_list_user_inputs conformance: PASSED"
    headings = [line.split("  ")[0] for line in lines if line[:3] in ("AC-",) or line.split("  ")[0].isupper()]
    assert [h for h in headings if h.startswith("AC-")] == [f"AC-{n}" for n in range(1, 11)]
    totals = [line for line in lines if re.match(r"\d+ passed, \d+ failed(, \d+ skipped)? in ", line)]
    assert len(totals) == 1 and totals[0].startswith(f"{ALL_PASSED['passed']} passed, 0 failed")
    assert lines[-1] == totals[0]  # the totals are last, as pytest ends; the fuzz phase's block comes before
    fuzz = [line for line in lines if line.startswith("fuzz: ")]
    assert fuzz and fuzz[-1].endswith(": passed")  # the short phase of every full run
