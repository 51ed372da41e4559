"""A failing run as a GitHub Actions step: annotations after the summary, the step summary appended to."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from runner.cli.expected_failures_runs import forked_runs

GITHUB_ACTIONS = {"annotated": "true", "plain": ""}
"""Each run's name and its ``GITHUB_ACTIONS``."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[subprocess.CompletedProcess[str], Path]]:
    """The mutant's run inside and outside GitHub Actions, forked from one process that imported the kit once, side
    by side (the expected-failures runs' batch), each with a folder of its own: each run and that folder."""
    folder = tmp_path_factory.mktemp("github")
    wanted = {}
    for name, actions in GITHUB_ACTIONS.items():
        (folder / name).mkdir()
        summary = folder / name / "step-summary.md"
        summary.write_text("## Build\n\nthe earlier step's text\n", encoding="utf-8")
        wanted[name] = {
            "argv": ["run", "--in-process", "--tags", "UNI-1", "--markdown", str(summary)],
            "mutants": ["newest_first"],
            "env": {"NO_COLOR": "1", "CCWEB_CONFORMANCE_CACHE_DIR": str(folder / name / "cache"),
                    "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": actions},
        }  # fmt: skip
    done = forked_runs(folder, wanted)
    return {name: (done[name], folder / name) for name in GITHUB_ACTIONS}


def test_a_failed_requirement_is_an_error_annotation_after_the_summary(
    runs: dict[str, tuple[subprocess.CompletedProcess[str], Path]],
) -> None:
    done, tmp_path = runs["annotated"]
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


def test_no_annotation_outside_github_actions(runs: dict[str, tuple[subprocess.CompletedProcess[str], Path]]) -> None:
    done, _ = runs["plain"]
    assert done.returncode == 1
    assert [line for line in done.stdout.splitlines() if line.startswith("::")] == []
