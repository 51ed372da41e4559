"""The console a pytest user expects (issue 35, 5): a first line at once, the totals line last, the
requirement table compact unless -v."""

from __future__ import annotations

import dataclasses
import re
import sys

import pytest
from runner.reports.sample_run import make_run

from ccweb_conformance.cli import main
from ccweb_conformance.commands.run import starting_line
from ccweb_conformance.options import resolve
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.values import resolve_values

TOTALS = re.compile(r"^\d+ passed, \d+ failed in \d+\.\d\ds$")


def test_the_first_line_says_what_is_started() -> None:
    options = resolve({})
    assert starting_line(resolve_values(options)) == (
        "testing the bundled reference server (stdio): the scenarios of ccweb_list_user_inputs 1.0.0, "
        "then the fuzz phase"
    )
    assert starting_line(resolve_values(dataclasses.replace(options, stdio="node server.js", tags="AC-3", fuzz=0))) == (
        "testing the stdio server 'node server.js' (selection: --tags AC-3): the scenarios of "
        "ccweb_list_user_inputs 1.0.0"
    )
    http = dataclasses.replace(options, http_cmd="srv {port}", url="http://h:{port}/mcp")
    assert starting_line(resolve_values(http)) == (
        "testing the HTTP server 'srv {port}' at http://h:{port}/mcp: the scenarios of ccweb_list_user_inputs 1.0.0, "
        "then the fuzz phase"
    )


def test_the_fuzz_block_comes_before_the_totals_which_are_last() -> None:
    lines = render_summary(make_run(), color=False, verbose=False, before_totals=["", "fuzz: 60 of 60 cases: passed"])
    assert lines.splitlines()[-5:] == [
        "",
        "fuzz: 60 of 60 cases: passed",
        "",
        "SKIP ac02_which_conversation.feature::The HTTP header binds the source: needs the HTTP transport",
        "1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s",
    ]


def test_a_terminal_sees_the_first_line_at_once_and_the_totals_last(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["run", "--in-process", "--tags", "AC-3", "--fuzz", "0"]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == (
        "ccweb-conformance: testing the in-process reference server (selection: --tags AC-3): the scenarios of "
        "ccweb_list_user_inputs 1.0.0"
    )
    lines = out.splitlines()
    assert lines[0] == "ccweb_list_user_inputs conformance: PASSED (selection: --tags AC-3)"
    assert TOTALS.match(lines[-1]), lines[-1]
    assert lines[4:-2] == [
        "AC-3  By default only the latest 15 user inputs, oldest to newest",
        "  PASS      SEL-6 SEL-7",
        "",
        "AC-6  limit and maxChars are defaulted and bounded; the total never exceeds maxChars",
        "  PASS      ARG-1",
    ]


def test_verbose_lists_every_requirement_with_its_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--in-process", "--tags", "AC-3", "--fuzz", "0", "-v"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  PASS      SEL-6     MUST" in lines
    assert "  PASS      SEL-6 SEL-7" not in lines
