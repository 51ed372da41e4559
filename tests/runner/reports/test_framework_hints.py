"""Hints for the mistakes the official SDKs and the frameworks make common, each shown by a mutant's run.

fastmcp (Python) answers a raised ToolError without structuredContent, coerces "15" to 15 (pydantic's lax
mode) and answers an unknown tool with a tool result; the TypeScript SDK v2 answers a failed input schema
with plain text (DESIGN D-13 note). The REG-2 hint agrees with PERF-3 (an unchanged file is not re-read).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

from ccweb_conformance.reports.hints import hints

pytestmark = pytest.mark.slow

RUN_PY = REPO / "tests" / "mutants" / "run.py"
HINTS = {h.id: h for h in hints()}


def failed_scenarios(mutant: str, tags: str, tmp_path: Path, *extra: str) -> list[dict]:
    """The failed scenarios of an in-process run of ``mutant`` on ``tags`` (it must exit 1)."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "mutant", mutant, "run", "--in-process", "--tags", tags, "--json", str(report),
         *extra],
        capture_output=True, text=True, encoding="utf-8", timeout=300, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return [s for s in scenarios if s["status"] == "failed"]


@pytest.mark.parametrize(
    ("mutant", "tags", "hint", "charged"),
    [
        ("tool_error_text_only", "PLC-4", "fastmcp-tool-error-text", ["PLC-4"]),
        ("numeric_strings_coerced", "ARG-3", "lax-coercion", ["ARG-3"]),
        ("unknown_tool_as_tool_error", "ERR-3", "unknown-tool-as-result", ["ERR-3"]),
        ("sdk_v2_validation_text", "ARG-3", "sdk-v2-validation-text", ["PLC-1"]),
        ("cached_by_size_and_mtime", "REG-2", "cache-mtime-size", ["REG-2"]),
    ],
)
def test_a_common_mistake_gets_its_hint(mutant: str, tags: str, hint: str, charged: list[str], tmp_path: Path) -> None:
    failed = failed_scenarios(mutant, tags, tmp_path)
    assert failed
    assert {tuple(s["failedRequirements"]) for s in failed} == {tuple(charged)}
    assert [s["diagnosis"]["hint"] for s in failed] == [HINTS[hint].text] * len(failed)


def test_the_chinese_console_shows_the_chinese_hint(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "mutant", "numeric_strings_coerced", "run", "--in-process", "--tags", "ARG-3",
         "--lang", "zh-CN"],
        capture_output=True, text=True, encoding="utf-8", timeout=300, check=False, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 1
    shown = [line.split(None, 1)[1] for line in done.stdout.splitlines() if line.startswith("    提示")]
    assert shown and set(shown) == {HINTS["lax-coercion"].text_zh}


def test_the_reg2_hint_agrees_with_perf3() -> None:
    """REG-2's hint must not tell a server to re-read an unchanged file (PERF-3 says it SHOULD NOT)."""
    text = HINTS["cache-mtime-size"].text
    assert "read the file on every call" not in text
    assert "PERF-3" in text and "ctime_ns" in text and "inode" in text
