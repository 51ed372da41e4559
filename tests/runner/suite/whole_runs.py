"""Whole runs against the bundled reference, one per transport and era: what the whole-suite tests share
(``test_suite_in_process.py``, ``test_suite_over_stdio.py``, ``test_suite_over_http.py``)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from suite_size import ALL_PASSED, ALL_PASSED_HTTP, ALL_PASSED_STDIO

from ccweb_conformance.cli import main

REFERENCE = f"{shlex.quote(sys.executable)} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}"
ERA_VERSIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


def run_report(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``run ARGS --json tmp_path/report.json`` in process: its exit code and report."""
    report = tmp_path / "report.json"
    code = main(["run", *args, "--json", str(report)])
    return code, json.loads(report.read_text(encoding="utf-8"))


NOT_RUN = {"http": {"PROTO-5", "PROTO-6"}, "in-process": {"PROTO-6"}, "stdio": set()}
"""Requirements of stdio's own rules no scenario runs on that transport: untested, never passed."""


def assert_all_passed(code: int, report: dict[str, Any], transport: str, version: str) -> None:
    """Every scenario of ``transport`` passed in era ``version``, and so did every requirement."""
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
