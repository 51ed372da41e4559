"""A whole run against a server whose answers are hostile to reports: every report valid, safe in a CI log, the
server's text whole in the JSON, no secret anywhere, and the kit's own words intact."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from paths import TESTS

FAKE = TESTS / "runner" / "fakes" / "hostile_stdio.py"
TOKEN = "tok-4f3e2d1c0b"
PASSWORD = "pa55-w0rd-9e8d"
HOSTILE = (  # as tests/runner/fakes/hostile_stdio.py writes it, its token redacted
    "::error::x\n  ##[group]g\na ##vso[task.setvariable]v\n\u2003::warning::w\n"
    "**bold** [l](http://x) ![i](http://x/i.png) ``` `` ` \x1b[2J token ***"
)
ORDINARY = ("--env", "CI=true", "--env", "VERBOSE=false", "--env", "MODE=content")
"""Options whose values are ordinary words: a report must keep every one of those words."""


def ci_commands(text: str) -> list[str]:
    """The lines of ``text`` a CI runner acts on: GitHub's ``::`` after any white space at a line's start and
    ``##[`` anywhere, Azure's ``##vso[`` anywhere; the kit's own annotations (``::error file=``) left out."""
    found = [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line or "##vso[" in line]
    return [line for line in found if not re.match(r"::(error|warning) file=features/", line)]


def outside_code(markdown: str) -> str:
    """The Markdown with its fenced blocks and code spans removed (CommonMark: a fence closes with a run of at
    least its length; a code span with a backtick run of exactly its opening's length)."""
    kept: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        opening = re.match(r" {0,3}(`{3,})", line)
        if fence is None and opening is not None:
            fence = opening[1]
        elif fence is not None and re.fullmatch(rf" {{0,3}}{fence}`*\s*", line):
            fence = None
        elif fence is None:
            kept.append(line)
    text = "\n".join(kept)
    return re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", "", text, flags=re.DOTALL)


def test_ci_commands_finds_each_rule_and_nothing_else() -> None:
    text = "a\n \u2003::warning::w\nx ##[g\ny ##vso[z\nmid :: and ## [x]\n::error file=features/x.feature::ok"
    assert ci_commands(text) == [" \u2003::warning::w", "x ##[g", "y ##vso[z"]


def test_outside_code_drops_fences_and_spans_of_any_length() -> None:
    markdown = "a `**b**` c ``x ` **d**`` e\n````text\n```\n**f**\n````\n**g**"
    assert outside_code(markdown) == "a  c  e\n**g**"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run: ``--json -`` (so the console is on stderr), the other reports as files."""
    folder = tmp_path_factory.mktemp("hostile")
    paths = {name: folder / f"report.{name}" for name in ("junitxml", "markdown", "cucumberjson")}
    command = [
        sys.executable, "-m", "ccweb_conformance.cli", "run", "-v", "--tags", "SEL-6", "--fuzz", "0",
        "--stdio", f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE))}", "--env", f"API_TOKEN={TOKEN}",
        *ORDINARY, "--json", "-", *(part for name, path in paths.items() for part in (f"--{name}", str(path))),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, timeout=300, check=False, env=_environment())
    texts = {name: path.read_text(encoding="utf-8") for name, path in paths.items()}
    return {"code": done.returncode, "json": done.stdout.decode(), "console": done.stderr.decode(), **texts}


def _environment() -> dict[str, str]:
    """This process's environment but ``GITHUB_ACTIONS``: the kit's own annotations are another test's."""
    return {key: value for key, value in os.environ.items() if key != "GITHUB_ACTIONS"}


def test_the_run_fails_on_the_servers_items(hostile: dict[str, Any]) -> None:
    assert hostile["code"] == 1, hostile["console"][-3000:]
    report = json.loads(hostile["json"])
    assert [s["status"] for s in report["scenarios"]] == ["failed"] * len(report["scenarios"])
    assert report["strict"] is False  # not "***": CI=true and VERBOSE=false are no secrets


@pytest.mark.parametrize("name", ["json", "junitxml", "cucumberjson", "markdown", "console"])
def test_no_report_holds_the_token_or_a_line_a_ci_runner_acts_on(hostile: dict[str, Any], name: str) -> None:
    assert TOKEN not in hostile[name]
    assert ci_commands(hostile[name]) == []
    assert "***" in hostile[name]  # the token the server echoed, redacted where it stood


def test_the_json_report_keeps_the_servers_text_whole(hostile: dict[str, Any]) -> None:
    report = json.loads(hostile["json"])
    contents = [
        exchange["response"]["result"]["structuredContent"]["items"][0]["content"]
        for scenario in report["scenarios"]
        for exchange in scenario["transcript"]
        if exchange["response"] and "structuredContent" in exchange["response"].get("result", {})
    ]
    assert contents and set(contents) == {HOSTILE}


def test_the_junit_and_cucumber_reports_parse_and_keep_the_servers_text(hostile: dict[str, Any]) -> None:
    failures = ET.fromstring(hostile["junitxml"]).findall(".//failure")
    assert any("a ##vso[task.setvariable]v" in (failure.text or "") for failure in failures)
    features = json.loads(hostile["cucumberjson"])
    steps = [step for feature in features for element in feature["elements"] for step in element["steps"]]
    assert any("##vso[task.setvariable]v" in step["result"].get("error_message", "") for step in steps)


def test_the_markdown_renders_none_of_the_servers_markdown(hostile: dict[str, Any]) -> None:
    shown = outside_code(hostile["markdown"])
    assert "item contents differ" in hostile["markdown"]  # MODE=content is no secret: the word stays
    for rendered in ("**bold**", "[l](http://x)", "![i](http://x/i.png)", "token"):
        assert rendered not in shown


def test_the_console_keeps_the_kits_words(hostile: dict[str, Any]) -> None:
    assert "item contents differ" in hostile["console"]
    assert "structuredContent" in hostile["console"]
    assert "\x1b[2J" not in hostile["console"]


def test_a_password_in_the_url_is_never_printed(tmp_path: Path) -> None:
    url = f"http://user:{PASSWORD}@127.0.0.1:9/mcp"  # the discard port: nothing answers
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--url", url, "--tags", "TOOL-1", "--fuzz", "0"]
    command += ["--sessions-dir", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=_environment())
    assert done.returncode == 2
    assert PASSWORD not in done.stdout + done.stderr
    started = done.stderr.splitlines()[0]
    assert started.startswith("ccweb-conformance: testing the HTTP server at http://***@127.0.0.1:9/mcp")
