"""The fuzz phase's target begun on a thread while the suite ends (fuzz/prestart.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

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
