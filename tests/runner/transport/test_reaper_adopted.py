"""The reaper stops what the run left by parentage and process group, not only by the marker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from paths import REPO
from runner.process_state import ended

from ccweb_conformance.transport import reaper

FAKE = REPO / "tests" / "runner" / "fakes" / "empty_env_daemon.py"


def test_a_detached_helper_with_an_empty_environment_is_stopped_and_named(tmp_path: Path) -> None:
    pid_file = tmp_path / "helper.pid"
    report = tmp_path / "report.json"
    command = [
        sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", f"{sys.executable} {FAKE} {pid_file}",
        "--tags", "TOOL-1", "--fuzz", "0", "--json", str(report),
        "--protocol", "legacy",  # one era: one server process (both eras would start a second, D-16)
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    helper = int(pid_file.read_text(encoding="ascii"))
    try:
        still_running = not ended(helper)
        environ = Path(f"/proc/{helper}/environ").read_bytes() if still_running else b""
    finally:
        if not ended(helper):
            os.kill(helper, signal.SIGKILL)
    assert not still_running, f"the helper {helper} outlived the run (environment {environ!r})"
    assert done.returncode == 0, done.stdout + done.stderr
    sleeper = f"pid {helper} ({sys.executable} -c import signal, time; signal.alarm(120); time.sleep(120))"
    assert json.loads(report.read_text(encoding="utf-8"))["leftoverProcesses"] == [sleeper]
    assert (
        f"warning: the server left 1 processes running after it was stopped (the runner killed them): {sleeper}"
        in done.stdout
    )


def test_outside_a_run_only_the_marker_counts() -> None:
    run = reaper.Reaping()
    run.begin()
    run.end()
    code = "import time; time.sleep(60)"
    child = subprocess.Popen([sys.executable, "-c", code], env={})
    try:
        deadline = time.monotonic() + 30  # until the child runs its own program (its command line is the code)
        while code.encode() not in Path(f"/proc/{child.pid}/cmdline").read_bytes().split(b"\0"):
            assert time.monotonic() < deadline, "the child did not start"
            time.sleep(0.01)
        assert run.adopted_processes() == []
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()


def test_in_a_run_a_child_started_since_is_found_with_its_group_but_an_older_one_is_not() -> None:
    older = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env={})
    time.sleep(0.05)
    script = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    )
    try:
        time.sleep(0.05)
        run = reaper.Reaping()
        assert run.begin() is True
        newer = subprocess.Popen([sys.executable, "-c", script], env={}, start_new_session=True)
        try:
            deadline = time.monotonic() + 10
            while len(found := run.adopted_processes()) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            pids = [leftover.pid for leftover in found]
            assert newer.pid in pids
            assert len(pids) == 2  # the newer child and its own child, not the older one
            assert older.pid not in pids
        finally:
            run.end()
            os.killpg(newer.pid, signal.SIGKILL)
            newer.wait()
    finally:
        older.kill()
        older.wait()
