"""What the profile's whole-run tests share: the fake server's command line, and a profile run in a
subprocess that a signal interrupts once it is under way (the servers it started, what it left)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from runner.process_state import ended

PYTHON = sys.executable
FAKES = Path(__file__).parents[1] / "fakes"
CONFORMANCE = str(Path(PYTHON).with_name("ccweb-conformance"))
RUN_BOUND = 120.0
"""Seconds a profile subprocess may take before the test calls it hung (a guard, not a speed check)."""
READY_BOUND = 60.0
"""Seconds a profile subprocess may take to get under way."""


def fake(mode: str) -> str:
    """The command line of the fake profile server in ``mode`` (slow, stale)."""
    return shlex.join([PYTHON, str(FAKES / "profile_stdio.py"), mode])


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (all its threads)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(word) for word in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


@dataclass(frozen=True)
class Interrupted:
    """A profile stopped by a signal: how it ended, and what was seen just before the signal."""

    returncode: int
    err: str
    servers: list[int]
    """The profile's child processes when the signal was sent."""
    seen: Any
    """What ``look()`` returned just before the signal."""


def interrupt(
    args: Sequence[str],
    env: Mapping[str, str],
    sig: int,
    ready: Callable[[list[int]], bool],
    look: Callable[[], Any] = lambda: None,
) -> Interrupted:
    """Run ``ccweb-conformance profile ARGS``; once ``ready(children)`` (bounded), send ``sig`` a second later."""
    process = subprocess.Popen(
        [CONFORMANCE, "profile", *args], env=dict(env), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + READY_BOUND
        while time.monotonic() < deadline and not ready(children(process.pid)):
            time.sleep(0.1)
        servers, seen = children(process.pid), look()
        time.sleep(1.0)
        process.send_signal(sig)
        _, err = process.communicate(timeout=RUN_BOUND)
    finally:
        process.kill()
        process.wait()
    return Interrupted(process.returncode, err.decode(), servers, seen)


def assert_gone(pids: Sequence[int]) -> None:
    """Every process of ``pids`` has ended."""
    if not Path("/proc/self/stat").exists():  # off Linux: signal 0 is the only probe (a zombie counts as alive)
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        return
    assert [pid for pid in pids if not ended(pid)] == []
