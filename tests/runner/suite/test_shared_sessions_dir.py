"""With ``--sessions-dir`` (a folder the runner does not own) only the run's own entries are judged (RO-2, D-12):
a server log written beside the folder, or a second run sharing it, leaves the reference green.
One pair of runs, made once, serves both tests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

RUN_BOUND = 240.0
"""Seconds one whole run (no fuzz phase) may take on a loaded machine."""


def _run(sessions: Path, report: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--in-process", "--fuzz", "0"]
    return subprocess.Popen(
        [*command, "--sessions-dir", str(sessions), "--json", str(report)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _finished(process: subprocess.Popen[str], report: Path) -> tuple[int, str, list[str]]:
    try:
        process.communicate(timeout=RUN_BOUND)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    data = json.loads(report.read_text(encoding="utf-8"))
    failed = [r["id"] for r in data["requirements"] if r["status"] == "failed"]
    return process.returncode, data["outcome"], failed


FOREIGN = "a1b2c3d4-0000-4000-8000-000000000000.json"
"""A conversation of someone else's in the shared folder: never judged, never touched."""


@pytest.fixture(scope="module")
def shared_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two whole runs at once sharing one sessions folder, while a server appends its log beside the folder (as
    cc-web's set-ups do): both tests below read these two runs (two whole runs, not three)."""
    root = tmp_path_factory.mktemp("shared")
    sessions = root / "sessions"
    sessions.mkdir()
    (sessions / FOREIGN).write_text('{"messages": []}', encoding="utf-8")
    log = root / "server.log"
    stop = threading.Event()

    def logging() -> None:
        with log.open("a", encoding="utf-8") as handle:
            while not stop.wait(0.01):
                handle.write("GET /api/sessions 200\n")
                handle.flush()

    writer = threading.Thread(target=logging, daemon=True)
    writer.start()
    try:
        first = _run(sessions, root / "first.json")
        second = _run(sessions, root / "second.json")
        results = [_finished(first, root / "first.json"), _finished(second, root / "second.json")]
    finally:
        stop.set()
        writer.join(5)
    return {
        "results": results,
        "root": sorted(p.name for p in root.iterdir()),
        "sessions": sorted(p.name for p in sessions.iterdir()),
        "logged": log.stat().st_size,
    }


def test_a_log_appended_beside_the_sessions_folder_during_a_whole_run_fails_nothing(
    shared_runs: dict[str, Any],
) -> None:
    assert shared_runs["logged"] > 0
    assert shared_runs["results"][0] == (0, "passed", [])
    assert shared_runs["root"] == ["first.json", "second.json", "server.log", "sessions"]
    assert shared_runs["sessions"] == [FOREIGN]


def test_two_runs_at_once_sharing_one_sessions_folder_both_pass(shared_runs: dict[str, Any]) -> None:
    assert shared_runs["results"] == [(0, "passed", []), (0, "passed", [])]
    assert shared_runs["sessions"] == [FOREIGN]
