"""A failing run as a GitHub Actions step: annotations after the summary, the step summary appended to."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from paths import REPO

RUN_PY = REPO / "tests" / "mutants" / "run.py"


def _mutant_run(tmp_path: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    summary = tmp_path / "step-summary.md"
    summary.write_text("## Build\n\nthe earlier step's text\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(RUN_PY), "mutant", "newest_first", "run", "--in-process", "--tags", "UNI-1",
         "--markdown", str(summary)],
        capture_output=True, text=True, timeout=180, check=False,
        env={**os.environ, "NO_COLOR": "1", "CCWEB_CONFORMANCE_CACHE_DIR": str(tmp_path / "cache"),
             "GITHUB_STEP_SUMMARY": str(summary), **environ},
    )


def test_a_failed_requirement_is_an_error_annotation_after_the_summary(tmp_path: Path) -> None:
    done = _mutant_run(tmp_path, GITHUB_ACTIONS="true")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::")]
    assert errors == [
        "::error file=features/ccweb_features/ac07_unicode.feature,line=49,"
        "title=SEL-7 (MUST)%3A Items are ordered oldest to newest%2C in the order the messages are…"
        "::ac07_unicode.feature::The budget counts an emoji once"
        '%0ASEL-7: items differ: $.items[0].content: expected "ab", got "😀😀" (U+1F600) (+1)'
        "%0Arerun: ccweb-conformance run --in-process -k test_the_budget_counts_an_emoji_once",
        *(  # the scenario stopped at SEL-7's check, before any of its other requirements': not reached, not PASS
            f"::warning file=features/ccweb_features/ac07_unicode.feature,line=49,title={title}"
            f"::no check of {requirement} ran: the scenario stopped at a check of SEL-7"
            "%0Aac07_unicode.feature::The budget counts an emoji once"
            '%0ASEL-7: items differ: $.items[0].content: expected "ab", got "😀😀" (U+1F600) (+1)'
            "%0Arerun: ccweb-conformance run --in-process -k test_the_budget_counts_an_emoji_once"
            for requirement, title in (
                ("BUD-1", "BUD-1 (MUST) not reached%3A The budget is spent from the newest candidate to older ones; a"
                 " message…"),
                ("UNI-1", "UNI-1 (MUST) not reached%3A Lengths are Unicode code points%3A a character outside the BMP"
                 " (an emoji)…"),
            )
        ),
    ]
    totals = next(i for i, line in enumerate(lines) if " passed, " in line and " failed in " in line)
    assert lines.index(errors[-1]) < totals  # before the console summary: the totals line stays the log's last
    assert totals == len(lines) - 1
    text = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert text.startswith("## Build\n\nthe earlier step's text\n\n## ccweb_list_user_inputs conformance: ")


def test_no_annotation_outside_github_actions(tmp_path: Path) -> None:
    done = _mutant_run(tmp_path, GITHUB_ACTIONS="")
    assert done.returncode == 1
    assert [line for line in done.stdout.splitlines() if line.startswith("::")] == []
