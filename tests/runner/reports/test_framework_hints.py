"""Hints for the mistakes the official SDKs and the frameworks make common, each shown by a mutant's run.

fastmcp (Python) answers a raised ToolError without structuredContent, coerces "15" to 15 (pydantic's lax
mode) and answers an unknown tool with a tool result; the TypeScript SDK v2 answers a failed input schema
with plain text (DESIGN D-13 note). The REG-2 hint agrees with PERF-3 (an unchanged file is not re-read).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from paths import REPO
from runner.cli.expected_failures_runs import BATCH
from runner.forked import run_as_group

from ccweb_conformance.reports.hints import hints

pytestmark = pytest.mark.slow

HINTS = {h.id: h for h in hints()}
MISTAKES = [
    ("tool_error_text_only", "PLC-4", "fastmcp-tool-error-text", ["PLC-4"]),
    ("numeric_strings_coerced", "ARG-3", "lax-coercion", ["ARG-3"]),
    ("unknown_tool_as_tool_error", "ERR-3", "unknown-tool-as-result", ["ERR-3"]),
    ("sdk_v2_validation_text", "ARG-3", "sdk-v2-validation-text", ["PLC-1"]),
    ("cached_by_size_and_mtime", "REG-2", "cache-mtime-size", ["REG-2"]),
]
"""(mutant, the tags its run selects, the hint its failures carry, the requirements they are charged to)."""
CHINESE = "numeric_strings_coerced-zh-CN"
"""The run whose console is in Chinese: ``numeric_strings_coerced`` on ARG-3 with ``--lang zh-CN``."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """Every in-process run of this module, forked from one process that imported the kit once, two at a time (the
    expected-failures runs' batch): the folder (``NAME.json``, ``NAME.out``, ``NAME.err``) and each exit code."""
    folder = tmp_path_factory.mktemp("hints")
    wanted = {
        mutant: {"argv": ["run", "--in-process", "--tags", tags, "--json", str(folder / f"{mutant}.json")],
                 "mutants": [mutant]}
        for mutant, tags, _, _ in MISTAKES
    }  # fmt: skip
    wanted[CHINESE] = {
        "argv": ["run", "--in-process", "--tags", "ARG-3", "--lang", "zh-CN"],
        "mutants": ["numeric_strings_coerced"],
    }
    batch = run_as_group([sys.executable, "-c", BATCH, str(folder), json.dumps(wanted)], REPO, 600)
    assert batch.returncode == 0, batch.stderr[-3000:]
    return folder, json.loads((folder / "codes.json").read_text(encoding="utf-8"))


def failed_scenarios(mutant: str, runs: tuple[Path, dict[str, int]]) -> list[dict]:
    """The failed scenarios of the in-process run of ``mutant`` on its tags (it must exit 1)."""
    folder, codes = runs
    logs = "".join((folder / f"{mutant}.{kind}").read_text(encoding="utf-8")[-2000:] for kind in ("out", "err"))
    assert codes[mutant] == 1, logs
    scenarios = json.loads((folder / f"{mutant}.json").read_text(encoding="utf-8"))["scenarios"]
    return [s for s in scenarios if s["status"] == "failed"]


@pytest.mark.parametrize(("mutant", "tags", "hint", "charged"), MISTAKES)
def test_a_common_mistake_gets_its_hint(
    mutant: str, tags: str, hint: str, charged: list[str], runs: tuple[Path, dict[str, int]]
) -> None:
    failed = failed_scenarios(mutant, runs)
    assert failed
    assert {tuple(s["failedRequirements"]) for s in failed} == {tuple(charged)}
    assert [s["diagnosis"]["hint"] for s in failed] == [HINTS[hint].text] * len(failed)


def test_the_chinese_console_shows_the_chinese_hint(runs: tuple[Path, dict[str, int]]) -> None:
    folder, codes = runs
    assert codes[CHINESE] == 1
    stdout = (folder / f"{CHINESE}.out").read_text(encoding="utf-8")
    shown = [line.split(None, 1)[1] for line in stdout.splitlines() if line.startswith("    提示")]
    assert shown and set(shown) == {HINTS["lax-coercion"].text_zh}


def test_the_reg2_hint_agrees_with_perf3() -> None:
    """REG-2's hint must not tell a server to re-read an unchanged file (PERF-3 says it SHOULD NOT)."""
    text = HINTS["cache-mtime-size"].text
    assert "read the file on every call" not in text
    assert "PERF-3" in text and "ctime_ns" in text and "inode" in text
