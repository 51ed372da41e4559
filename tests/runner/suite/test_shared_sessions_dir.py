"""With ``--sessions-dir`` (a folder the runner does not own) only the run's own entries are judged (RO-2, D-12):
a server log written beside the folder, or a second run sharing it, leaves the reference green."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

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


def test_a_log_appended_beside_the_sessions_folder_during_a_whole_run_fails_nothing(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    log = tmp_path / "server.log"
    stop = threading.Event()

    def logging() -> None:  # a server writing its log next to the folder, as cc-web's set-ups do
        with log.open("a", encoding="utf-8") as handle:
            while not stop.wait(0.01):
                handle.write("GET /api/sessions 200\n")
                handle.flush()

    writer = threading.Thread(target=logging, daemon=True)
    writer.start()
    try:
        result = _finished(_run(sessions, tmp_path / "report.json"), tmp_path / "report.json")
    finally:
        stop.set()
        writer.join(5)
    assert result == (0, "passed", [])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "server.log", "sessions"]
    assert list(sessions.iterdir()) == []


def test_two_runs_at_once_sharing_one_sessions_folder_both_pass(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "a1b2c3d4-0000-4000-8000-000000000000.json").write_text('{"messages": []}', encoding="utf-8")
    first = _run(sessions, tmp_path / "first.json")
    second = _run(sessions, tmp_path / "second.json")
    results = [_finished(first, tmp_path / "first.json"), _finished(second, tmp_path / "second.json")]
    assert results == [(0, "passed", []), (0, "passed", [])]
    assert [p.name for p in sessions.iterdir()] == ["a1b2c3d4-0000-4000-8000-000000000000.json"]
