"""Every failed scenario carries the command that reruns it alone against the same target (issue 35, 3).

A real failing run (the mutant newest_first) gives the reproducer in the console's failure block and in
the JSON, JUnit and Markdown reports; pasted back, its ``-k`` collects exactly the scenario that failed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from paths import REPO

from ccweb_conformance.cli import main
from ccweb_conformance.options import resolve
from ccweb_conformance.values import target_of

RUN_PY = REPO / "tests" / "mutants" / "run.py"
FAILED = "ac07_unicode.feature::The budget counts an emoji once"
COMMAND = "ccweb-conformance run --in-process -k test_the_budget_counts_an_emoji_once"


def test_a_failed_scenario_carries_a_reproducer_that_selects_it_alone(tmp_path: Path, capsys) -> None:
    report, junit, markdown = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "mutant", "newest_first", "run", "--in-process", "--tags", "UNI-1",
         "--json", str(report), "--junitxml", str(junit), "--markdown", str(markdown)],
        capture_output=True, text=True, timeout=180, check=False,
        env={**os.environ, "NO_COLOR": "1", "CCWEB_CONFORMANCE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 1
    [failed] = [s for s in json.loads(report.read_text(encoding="utf-8"))["scenarios"] if s["status"] == "failed"]
    assert f"{failed['file']}::{failed['name']}" == FAILED
    assert failed["diagnosis"]["reproducer"] == COMMAND
    assert failed["diagnosis"]["block"][-2] == f"    rerun        {COMMAND}"  # the rerun alone's line comes last
    assert f"    rerun        {COMMAND}" in done.stdout.splitlines()
    assert f"    rerun        {COMMAND}" in junit.read_text(encoding="utf-8")
    assert f"  rerun: `{COMMAND}`" in markdown.read_text(encoding="utf-8").splitlines()

    words = shlex.split(COMMAND)
    assert main([*words[1:], "--co"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in lines[:-1]] == [FAILED]


def test_the_reproducer_names_the_target_as_given_and_redacts_secrets() -> None:
    options = dataclasses.replace(
        resolve({}), stdio="node server.js --port 1", header=("Authorization: Bearer T0KEN",), env=("API_KEY=s3cret",),
        timeout=20.0, tags="UNI-1",
    )
    assert target_of(options).rerun_line("-k", "test_x[ and .]") == (
        "ccweb-conformance run --stdio 'node server.js --port 1' --header 'Authorization: ***' --env 'API_KEY=***' "
        "--timeout 20 -k 'test_x[ and .]'"
        "  # *** stands for the values of --header Authorization, --env API_KEY: supply them again"
    )


def test_every_rerun_line_repeats_the_target_in_the_same_words() -> None:
    """The rerun tail is the target's own: the failure's reproducer, the fuzz phase's replay line and the
    --last-failed record name it alike, and every line that shows a value as *** says which to supply again."""
    from ccweb_conformance.commands.last_failed import describe_target  # noqa: PLC0415
    from ccweb_conformance.fuzz.phase import replay_command  # noqa: PLC0415 (hypothesis)
    from ccweb_conformance.fuzz.settings import FuzzSettings  # noqa: PLC0415 (beside it)

    options = dataclasses.replace(
        resolve({}), http_cmd="srv --port {port}", url="http://user:pa55word@127.0.0.1:{port}/mcp",
        header=("X-Api-Key: k-123456",), env=("CI=true",), protocol="legacy", max_time=60.0,
    )
    target = target_of(options)
    words = (
        "--http-cmd 'srv --port {port}' --url 'http://***@127.0.0.1:{port}/mcp' --header 'X-Api-Key: ***' "
        "--env 'CI=***' --protocol legacy --max-time 60"
    )
    supply = "  # *** stands for the values of --header X-Api-Key, --env CI, --url: supply them again"
    assert target.rerun_line("-k", "test_x") == f"ccweb-conformance run {words} -k test_x{supply}"
    assert replay_command(target, FuzzSettings(5, 1)) == f"ccweb-conformance run {words} --fuzz 5 --seed 1{supply}"
    assert describe_target(target) == (
        "--http-cmd 'srv --port {port}' --url 'http://***@127.0.0.1:{port}/mcp' --header 'X-Api-Key: ***' "
        "--env 'CI=***'"
    )
