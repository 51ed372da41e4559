"""Processes a server left behind: found by the run's marker and by parentage, stopped at the end of the run.

Every process the runner spawns gets ``CCWEB_CONFORMANCE_RUN=<marker>`` in its environment,
and descendants inherit it. On Linux the runner also becomes a child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so a daemonised descendant (one that called ``setsid``
and lost its parent) is re-parented to the runner instead of init, so it stays findable
here even when it dropped the marker (an ``exec`` with an empty environment).

:func:`sweep` walks ``/proc`` after the servers were stopped and kills every live process of
the run: those carrying the marker; those the runner is parent or subreaper of that started
after the run began (:func:`become_subreaper` notes when), with their descendants; and every
process in the process group of one of those. It says which they were.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MARKER_ENV",
    "SERVER_ENV",
    "Leftover",
    "become_subreaper",
    "end_run",
    "kill_marked",
    "marker",
    "sweep",
    "take_killed",
]

MARKER_ENV = "CCWEB_CONFORMANCE_RUN"
SERVER_ENV = "CCWEB_CONFORMANCE_SERVER"
"""Names one spawned server, so what it left can be stopped with it (before its pipes are closed)."""
PR_SET_CHILD_SUBREAPER = 36
KILL_WAIT = 2.0
"""Seconds to wait for leftovers to die after SIGKILL."""
_MARKER = f"{os.getpid()}-{secrets.token_hex(6)}"
_PROC = Path("/proc")
_RUN_STARTED: list[int] = []
"""When the run began, in clock ticks since boot (the unit of /proc/<pid>/stat's start time); empty outside a run."""


def marker() -> str:
    """This runner process's marker, put into every spawned process's environment."""
    return _MARKER


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux); False where unsupported.

    Also notes when the run began: :func:`sweep` then stops the runner's children started since.
    """
    if not sys.platform.startswith("linux"):
        return False
    now = _now_ticks()
    if now is not None:
        _RUN_STARTED[:] = [now]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def end_run() -> None:
    """The run is over: from now on :func:`sweep` goes by the marker only."""
    _RUN_STARTED.clear()


def _now_ticks() -> int | None:
    try:
        uptime = float((_PROC / "uptime").read_text(encoding="ascii").split()[0])
        return int(uptime * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class _Stat:
    """What /proc/<pid>/stat says about a process's place in the tree."""

    pid: int
    state: str
    parent: int
    group: int
    started: int


def _stat(pid: int) -> _Stat | None:
    try:
        fields = (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
        return _Stat(pid, fields[0], int(fields[1]), int(fields[2]), int(fields[19]))
    except (OSError, IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Leftover:
    """A process of the run still running after its server was stopped."""

    pid: int
    command: str

    def describe(self) -> str:
        """``pid 123 (python server.py)``."""
        return f"pid {self.pid} ({self.command})"


def _state(pid: int) -> str:
    try:
        return (_PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "X"


def _carries_marker(pid: int, token: bytes) -> bool:
    try:
        environ = (_PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return False
    return token in environ.split(b"\0")


def _command(pid: int) -> str:
    try:
        words = (_PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode("utf-8", "replace") for w in words if w)
    return text[:200] or "?"


_KILLED: list[Leftover] = []
_KILLED_LOCK = threading.Lock()


def marked_processes(run_marker: str | None = None, name: str = MARKER_ENV) -> list[Leftover]:
    """Live processes (not zombies) whose environment has ``name=marker``, the runner itself excluded."""
    if not _PROC.is_dir():
        return []
    token = f"{name}={run_marker or _MARKER}".encode()
    found = []
    for entry in _PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        pid = int(entry.name)
        if _carries_marker(pid, token) and _state(pid) not in ("Z", "X"):
            found.append(Leftover(pid, _command(pid)))
    return sorted(found, key=lambda leftover: leftover.pid)


def kill_marked(name: str, value: str) -> list[Leftover]:
    """Kill the live processes whose environment has ``name=value`` (what one server left); remember them."""
    leftovers = _kill(marked_processes(value, name))
    with _KILLED_LOCK:
        _KILLED.extend(leftovers)
    return leftovers


def take_killed() -> list[Leftover]:
    """The leftovers :func:`kill_marked` stopped since the last call."""
    with _KILLED_LOCK:
        taken = list(_KILLED)
        _KILLED.clear()
    return taken


def adopted_processes() -> list[Leftover]:
    """Live processes of the run found by parentage: the runner's children started since the run began,
    their descendants, and every process in one of their process groups (none outside a run)."""
    if not _RUN_STARTED or not _PROC.is_dir():
        return []
    me = os.getpid()
    table = [info for entry in _PROC.iterdir() if entry.name.isdigit() and (info := _stat(int(entry.name)))]
    alive = {info.pid: info for info in table if info.state not in ("Z", "X") and info.pid != me}
    found = {pid for pid, info in alive.items() if info.parent == me and info.started >= _RUN_STARTED[0]}
    grown = True
    while grown:
        groups = {alive[pid].group for pid in found} - {os.getpgrp()}
        more = {
            pid
            for pid, info in alive.items()
            if pid not in found and (info.parent in found or (info.group in groups and info.started >= _RUN_STARTED[0]))
        }
        found |= more
        grown = bool(more)
    return [Leftover(pid, _command(pid)) for pid in sorted(found)]


def sweep() -> list[Leftover]:
    """Kill every live process of the run (by marker, parentage and process group); the ones that were running."""
    found = {leftover.pid: leftover for leftover in marked_processes() + adopted_processes()}
    return _kill([found[pid] for pid in sorted(found)])


def _kill(leftovers: list[Leftover]) -> list[Leftover]:
    for leftover in leftovers:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(leftover.pid, signal.SIGKILL)
    deadline = time.monotonic() + KILL_WAIT
    pids = [leftover.pid for leftover in leftovers]
    # Dead is enough: a zombie re-parented to the runner goes when the runner does. Reaping it
    # here (waitpid) could steal the exit status of a child a subprocess.Popen still waits for.
    while pids and time.monotonic() < deadline and not all(_state(pid) in ("Z", "X") for pid in pids):
        time.sleep(0.02)
    return leftovers
