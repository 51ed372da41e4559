"""Processes a server left behind: found by parentage (and, where that is not possible, by the run's marker),
stopped at the end of the run.

On Linux the runner becomes a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so a daemonised
descendant (one that called ``setsid`` and lost its parent) is re-parented to the runner instead of
init, and stays findable by parentage and process group; what one server left still holding its pipes
is found by those pipes (:func:`kill_pipe_holders`). The servers' environment then carries nothing of
the runner's (a server must not be able to tell it is under test). Where the runner cannot be a
subreaper (macOS), every process it spawns gets ``CCWEB_CONFORMANCE_RUN=<marker>`` (and each server
``CCWEB_CONFORMANCE_SERVER``) in its environment instead, and descendants inherit it (:func:`marks`).

:func:`sweep` walks the process table (psutil: Linux and macOS) after the servers were stopped
and kills every live process of the run: those carrying the marker (both systems); on Linux also
those the runner is parent or subreaper of that started after the run began
(:func:`become_subreaper` notes when), with their descendants, and every process in the process
group of one of those. It says which they were.
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

import psutil

__all__ = [
    "MARKER_ENV",
    "SERVER_ENV",
    "Leftover",
    "become_subreaper",
    "end_run",
    "kill_marked",
    "kill_pipe_holders",
    "marker",
    "marks",
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
_RUN_STARTED: list[int] = []
"""When the run began, in clock ticks since boot (the unit of a process's start time on Linux); empty outside a run."""
_GONE = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
_SUBREAPING: list[bool] = []
"""[True] once this process is a child subreaper: leftovers are found by parentage, servers carry no marker."""


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
        done = int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
    _SUBREAPING[:] = [True] if done else []
    return done


def marks(server: str | None = None) -> dict[str, str]:
    """The variables a spawned process carries so its leftovers are found: none where the runner is a subreaper
    (parentage finds them); elsewhere the run's marker, and ``server``'s own mark when given."""
    if _SUBREAPING:
        return {}
    found = {MARKER_ENV: _MARKER}
    if server is not None:
        found[SERVER_ENV] = server
    return found


def end_run() -> None:
    """The run is over: from now on :func:`sweep` goes by the marker only."""
    _RUN_STARTED.clear()


def _now_ticks() -> int | None:
    """Clock ticks since boot now (CLOCK_BOOTTIME: what /proc/uptime says), floored as start times are."""
    try:
        return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))
    except (AttributeError, OSError, ValueError):
        return None


def _started_ticks(process: psutil.Process, boot_time: float) -> int:
    """When ``process`` started, in clock ticks since boot (psutil adds the boot time to them: taken off)."""
    return round((process.create_time() - boot_time) * os.sysconf("SC_CLK_TCK"))


@dataclass(frozen=True)
class _Stat:
    """A process's place in the tree."""

    pid: int
    state: str
    parent: int
    group: int
    started: int


def _stat(process: psutil.Process, boot_time: float) -> _Stat | None:
    try:
        with process.oneshot():
            started = _started_ticks(process, boot_time)
            return _Stat(process.pid, process.status(), process.ppid(), os.getpgid(process.pid), started)
    except (psutil.Error, OSError):
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
    """psutil's status of ``pid``; ``dead`` when it is gone."""
    try:
        return str(psutil.Process(pid).status())
    except psutil.Error:
        return psutil.STATUS_DEAD


def _carries_marker(process: psutil.Process, name: str, value: str) -> bool:
    try:
        return process.environ().get(name) == value
    except (psutil.Error, OSError):
        return False


def _command(pid: int) -> str:
    try:
        words = psutil.Process(pid).cmdline()
    except (psutil.Error, OSError):
        return "?"
    return " ".join(w for w in words if w)[:200] or "?"


_KILLED: list[Leftover] = []
_KILLED_LOCK = threading.Lock()


def marked_processes(run_marker: str | None = None, name: str = MARKER_ENV) -> list[Leftover]:
    """Live processes (not zombies) whose environment has ``name=marker``, the runner itself excluded."""
    value = run_marker or _MARKER
    found = []
    for process in psutil.process_iter():  # psutil keeps these objects between calls: no re-reading
        if process.pid == os.getpid():
            continue
        if _carries_marker(process, name, value) and _state(process.pid) not in _GONE:
            found.append(Leftover(process.pid, _command(process.pid)))
    return sorted(found, key=lambda leftover: leftover.pid)


def kill_marked(name: str, value: str) -> list[Leftover]:
    """Kill the live processes whose environment has ``name=value`` (what one server left); remember them."""
    leftovers = _kill(marked_processes(value, name))
    with _KILLED_LOCK:
        _KILLED.extend(leftovers)
    return leftovers


def _holding(pipes: set[int]) -> list[Leftover]:
    """Live processes (the runner excluded) with one of these pipes (by inode) open: Linux's /proc."""
    wanted = {f"pipe:[{inode}]" for inode in pipes}
    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid() or _state(process.pid) in _GONE:
            continue
        try:
            links = {os.readlink(f"/proc/{process.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{process.pid}/fd")}
        except OSError:
            continue
        if links & wanted:
            found.append(Leftover(process.pid, _command(process.pid)))
    return found


def kill_pipe_holders(pipes: set[int]) -> list[Leftover]:
    """Kill the live processes that hold one of a stopped server's pipes (what it left that left its group, too).

    A process of the server's that lost its parent and left its group is found here by the pipes it
    inherited; one that closed them is found by the run's sweep (parentage: the runner is its subreaper).
    """
    leftovers = _kill(_holding(pipes)) if pipes and sys.platform.startswith("linux") else []
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
    if not _RUN_STARTED:
        return []
    me = os.getpid()
    boot_time = psutil.boot_time()
    table = [info for process in psutil.process_iter() if (info := _stat(process, boot_time))]
    alive = {info.pid: info for info in table if info.state not in _GONE and info.pid != me}
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
    while pids and time.monotonic() < deadline and not all(_state(pid) in _GONE for pid in pids):
        time.sleep(0.02)
    return leftovers
