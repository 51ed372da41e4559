"""The fuzz phase's target begun on a thread while the suite ends (fuzz/prestart.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ccweb_conformance.errors import TargetError
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.fuzz import prestart
from ccweb_conformance.fuzz.prestart import FuzzTargetStart
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport import census
from ccweb_conformance.transport.versions import client_info, thread_client_name

REPO = Path(__file__).resolve().parents[3]
CLIENT_NAME_MUTANT = "correct_only_for_the_runners_client_name"


def test_a_thread_s_client_name_is_its_own() -> None:
    seen: dict[str, str] = {}
    inside = threading.Event()
    done = threading.Event()

    def other() -> None:
        with thread_client_name("claude-code"):
            seen["other"] = client_info()["name"]
            inside.set()
            done.wait(5.0)
        seen["after"] = client_info()["name"]

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(5.0)
    seen["main"] = client_info()["name"]
    done.set()
    thread.join(5.0)
    assert seen == {"other": "claude-code", "main": "ccweb-conformance", "after": "ccweb-conformance"}


def test_a_process_started_inside_thread_phase_is_counted_for_that_phase() -> None:
    census.take()
    with census.thread_phase("fuzz"):
        census.note("stdio server", "exec")
    census.note("stdio server", "exec")
    assert [(s.phase, s.role) for s in census.take()] == [("fuzz", "stdio server"), ("suite", "stdio server")]


def test_the_prestarted_target_asks_as_cc_web_s_client_in_the_legacy_era(tmp_path: Path) -> None:
    """Over stdio in the legacy era the name travels only in initialize, sent by the prestart thread: a server
    correct only for the runner's name fails the phase (it passed when that thread named itself as the runner)."""
    serve = f"{sys.executable} tests/mutants/run.py serve mutant {CLIENT_NAME_MUTANT} --sessions-dir {{sessions_dir}}"
    report = tmp_path / "run.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", serve, "--protocol", "legacy"]
    command += ["--tags", "TOOL-1", "--fuzz", "60", "--json", str(report)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300, check=False)
    result = json.loads(report.read_text(encoding="utf-8"))
    fuzz = [s for s in result["scenarios"] if s["feature"] == "Differential fuzzing"]
    phases = {(k["phase"], k["count"]) for k in result["processes"]["kinds"]}
    assert (done.returncode, [s["status"] for s in fuzz], ("fuzz", 1) in phases) == (1, ["failed"], True)


class _FakeTarget:
    """What the prestart touches of a target: ``client(None)`` and ``close``."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.closed = 0

    def client(self, source: object) -> None:
        del source
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        self.closed += 1


def _start_with(monkeypatch: pytest.MonkeyPatch, fake: _FakeTarget, tmp_path: Path) -> FuzzTargetStart:
    monkeypatch.setattr(prestart, "make_target", lambda options, sessions_dir: fake)
    return FuzzTargetStart(RunnerOptions(), Workspace(tmp_path / "sessions"))


def test_a_start_never_begun_hands_out_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert _start_with(monkeypatch, _FakeTarget(), tmp_path).take() is None


def test_a_failed_start_is_raised_where_the_phase_takes_it_and_its_target_closed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = _FakeTarget(TargetError("no answer"))
    start = _start_with(monkeypatch, fake, tmp_path)
    start.begin()
    with pytest.raises(TargetError, match="no answer"):
        start.take()
    assert fake.closed == 1


def test_a_start_for_a_phase_that_does_not_run_is_stopped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = _FakeTarget()
    start = _start_with(monkeypatch, fake, tmp_path)
    start.begin()
    start.discard()
    start.discard()
    assert fake.closed == 1
