"""The run says what it did: the bundled reference and how to test yours, counts that add up (issue 23)."""

from __future__ import annotations

import dataclasses
import re

from runner.reports.sample_run import make_run

from ccweb_conformance.cli import main
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.reports.model import RunResult

NOTE = 'the bundled reference; to test yours: ccweb-conformance run --stdio "node server.js" (or --url URL)'


def with_run_checks(run: RunResult) -> RunResult:
    first = run.scenarios[0]
    audit = dataclasses.replace(first, feature_file="audit", line=0, scenario="After the run", steps=[])
    fuzz = dataclasses.replace(first, feature_file="fuzz", line=0, scenario="2 generated conversations", steps=[])
    return dataclasses.replace(run, scenarios=[*run.scenarios, audit, fuzz], bundled_reference=True)


def test_the_summary_names_the_bundled_reference_and_reconciles_the_counts() -> None:
    run = make_run()
    lines = render_summary(with_run_checks(run), color=False, verbose=False).splitlines()
    assert lines[2] == NOTE
    assert lines[-2:] == [
        f"{len(run.scenarios) + 2} results: {len(run.scenarios)} scenarios + 2 run checks (audit, fuzz)",
        "3 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s",
    ]


def test_a_server_of_ones_own_gets_neither_line() -> None:
    text = render_summary(make_run(), color=False, verbose=False)
    assert NOTE not in text
    assert " results: " not in text


def test_the_markdown_says_it_too() -> None:
    text = render_markdown(with_run_checks(make_run()))
    assert f"  \n{NOTE}" in text
    assert "  \n8 results: 6 scenarios + 2 run checks (audit, fuzz)" in text


def test_a_real_run_counts_what_progress_counted(capsys) -> None:
    assert main(["run", "--in-process", "--tags", "AC-1,RO-2", "--fuzz", "2"]) == 0
    captured = capsys.readouterr()
    progress = re.findall(r"/(\d+) scenarios", captured.err)
    assert progress and progress[-1] == "12"
    assert NOTE in captured.out.splitlines()
    assert "14 results: 12 scenarios + 2 run checks (audit, fuzz)" in captured.out.splitlines()
    assert "14 passed, 0 failed in " in captured.out


def test_one_scenario_and_one_warning_are_singular_as_in_pytest() -> None:
    run = make_run()
    first = dataclasses.replace(run.scenarios[0], status="warning")
    audit = dataclasses.replace(first, feature_file="audit", line=0, scenario="After the run", steps=[])
    audit = dataclasses.replace(audit, status="passed")
    lines = render_summary(dataclasses.replace(run, scenarios=[first, audit]), color=False, verbose=False).splitlines()
    assert lines[-2:] == ["2 results: 1 scenario + 1 run check (audit)", "1 passed, 0 failed, 1 warning in 3.21s"]
