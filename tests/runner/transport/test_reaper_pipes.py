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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipes are found through Linux's /proc")
def test_a_child_of_the_runner_between_fork_and_exec_is_not_a_holder() -> None:
    """Under --jobs a lane may be starting its server while another server's pipes are looked for: the forked
    child holds every descriptor of the runner's until its exec. It is not the stopped server's (killed, the
    other lane's start would seem to succeed and its server die at once); what exec'd holding the pipe is."""
    import os  # noqa: PLC0415
    import signal  # noqa: PLC0415
    import time  # noqa: PLC0415

    read_end, write_end = os.pipe()
    forked = os.fork()
    if forked == 0:  # the runner's child before its exec: sleeps holding both ends, then ends
        try:
            time.sleep(30)
        finally:
            os._exit(0)
    holder = subprocess.Popen([sys.executable, "-c", SLEEPER], pass_fds=(read_end,))
    try:
        time.sleep(0.2)  # both started
        found = reaper._holding({os.fstat(read_end).st_ino})
    finally:
        os.kill(forked, signal.SIGKILL)
        os.waitpid(forked, 0)
        holder.kill()
        holder.wait(10)
        os.close(read_end)
        os.close(write_end)
    assert [leftover.pid for leftover in found] == [holder.pid]
