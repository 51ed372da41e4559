"""A failing run as a team reads it in tmux at 80 columns (issue 35, "Done when"): the last screen ends with
the summary line, and every failure carries a reproducer that, pasted back, reruns that scenario alone.

The server is a stdio mutant started by a long command (the interpreter's and run.py's paths), so the
reproducers hold a shell word wider than the terminal: it stays whole and the terminal soft-wraps it.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import REPO

from ccweb_conformance.textwidth import display_width

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (apt-get install -y tmux)"),
]
RUNNER = Path(sys.executable).with_name("ccweb-conformance")
SERVER = f"{shlex.quote(sys.executable)} {shlex.quote(str(REPO / 'tests' / 'mutants' / 'run.py'))} serve mutant " \
    "transient_lock_file --sessions-dir {sessions_dir}"
ARGV = [str(RUNNER), "run", "--stdio", SERVER, "--tags", "RO-2", "--fuzz", "0", "--json", "report.json"]
COLUMNS, ROWS = 80, 50
WAIT_S = 180.0
EXIT_MARK = "ccwk-exit-status="
RERUN = "    rerun        "


def tmux(socket: str, *args: str) -> str:
    done = subprocess.run(["tmux", "-u", "-L", socket, *args], capture_output=True, text=True, timeout=30, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def screens(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[str], list[str], dict, Path]]:
    """(the last screen, the whole history with soft-wrapped lines joined, the JSON report, the folder)."""
    folder = tmp_path_factory.mktemp("tmux80")
    (folder / "tmux.conf").write_text("set -g remain-on-exit on\nset -g history-limit 5000\n", encoding="utf-8")
    socket = f"ccwk-{uuid.uuid4().hex[:12]}"
    command = f'cd {shlex.quote(str(folder))} && {shlex.join(ARGV)}; echo "{EXIT_MARK}$?"'
    size = ("-x", str(COLUMNS), "-y", str(ROWS))
    tmux(socket, "-f", str(folder / "tmux.conf"), "new-session", "-d", *size, "-s", "ci", command)
    try:
        deadline = time.monotonic() + WAIT_S
        while tmux(socket, "display-message", "-p", "-t", "ci", "#{pane_dead}").strip() != "1":
            assert time.monotonic() < deadline, f"the run did not end within {WAIT_S:.0f} s"
            time.sleep(0.2)
        screen = tmux(socket, "capture-pane", "-p", "-t", "ci").splitlines()
        history = tmux(socket, "capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "ci").splitlines()
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=30, check=False)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    yield screen, history, report, folder


def test_the_last_screen_ends_with_the_summary_line(screens: tuple[list[str], list[str], dict, Path]) -> None:
    screen = [line.rstrip() for line in screens[0] if line.strip()]
    mark = next(i for i, line in enumerate(screen) if line.startswith(EXIT_MARK))
    assert screen[mark] == f"{EXIT_MARK}1"
    assert re.fullmatch(r"3 passed, 4 failed in \d+\.\d\ds", screen[mark - 1]), screen[mark - 3 : mark]
    assert screen[mark - 2] == "7 results: 6 scenarios + 1 run check (audit)"


def rerun_commands(history: list[str]) -> list[str]:
    """Each rerun line of the history, its `` \\`` continuations joined back into one command."""
    commands = []
    for index, line in enumerate(history):
        if line.startswith(RERUN):
            parts = [line[len(RERUN) :].rstrip()]
            while parts[-1].endswith(" \\"):
                parts.append(history[index + len(parts)].strip())
            commands.append(" ".join(part.removesuffix(" \\") for part in parts))
    return commands


def test_each_failure_has_its_reproducer_whole_on_screen(screens: tuple[list[str], list[str], dict, Path]) -> None:
    _, history, report, _ = screens
    failed = [s for s in report["scenarios"] if s["status"] == "failed" and s["diagnosis"] is not None]
    expected = [s["diagnosis"]["reproducer"] for s in failed]
    assert len(expected) == 4 and all(expected)
    assert [shlex.split(c) for c in rerun_commands(history)] == [shlex.split(c) for c in expected]
    wide = [line.strip().removesuffix(" \\") for line in history if display_width(line) > COLUMNS]
    # joined here; on screen the terminal soft-wrapped them: one shell word each, the server command or a -k value
    assert SERVER in {word for line in wide for word in shlex.split(line)}
    assert all(len(shlex.split(line)) == 1 for line in wide), wide


def test_a_reproducer_reruns_only_its_scenario(screens: tuple[list[str], list[str], dict, Path]) -> None:
    _, _, report, folder = screens
    scenario = next(s for s in report["scenarios"] if s["status"] == "failed" and "[" in s["name"])
    words = shlex.split(scenario["diagnosis"]["reproducer"])
    assert words[0] == "ccweb-conformance"
    done = subprocess.run(
        [str(RUNNER), *words[1:], "--json", "again.json"], capture_output=True, text=True, timeout=WAIT_S,
        check=False, cwd=folder,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    again = json.loads((folder / "again.json").read_text(encoding="utf-8"))
    ran = [s["name"] for s in again["scenarios"] if s["file"] != "audit"]  # the run check: every run has it
    assert ran == [scenario["name"]]
