"""What a stopped server left holding its pipes is found by those pipes; only a holder's state is read (each
server's stop scans the process table, so the scan reads the descriptors alone)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ccweb_conformance.transport import reaper
from ccweb_conformance.transport.process import pipe_inodes

SLEEPER = "import signal, time; signal.alarm(60); time.sleep(60)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipes are found through Linux's /proc")
def test_the_holder_of_a_pipe_is_found_and_only_its_state_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    state = reaper._state

    def noted(pid: int) -> str:
        read.append(pid)
        return state(pid)

    monkeypatch.setattr(reaper, "_state", noted)
    holder = subprocess.Popen([sys.executable, "-c", SLEEPER], stdout=subprocess.PIPE)
    try:
        found = reaper._holding(pipe_inodes(holder.stdout))
    finally:
        holder.kill()
        holder.wait(10)
        assert holder.stdout is not None
        holder.stdout.close()
    assert [(leftover.pid, leftover.command) for leftover in found] == [(holder.pid, f"{sys.executable} -c {SLEEPER}")]
    assert read == [holder.pid]
