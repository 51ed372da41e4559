"""Processes a server left behind: found by parentage (and, where that is not possible, by the run's marker),
stopped at the end of the run.

On Linux the runner becomes a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so a daemonised
descendant (one that called ``setsid`` and lost its parent) is re-parented to the runner instead of
init, and stays findable by parentage and process group; what one server left still holding its pipes
is found by those pipes (:func:`kill_pipe_holders`). The servers' environment then carries nothing of
the runner's (a server must not be able to tell it is under test). Where the runner cannot be a
subreaper (macOS), every process it spawns gets ``CCWEB_CONFORMANCE_RUN=<marker>`` (and each server
``CCWEB_CONFORMANCE_SERVER``) in its environment instead, and descendants inherit it (:meth:`Reaping.marks`).

What one run knows of this is its :class:`Reaping` (held by its run context): its marker, when it began,
whether the runner is a subreaper, what was stopped. :meth:`Reaping.sweep` walks the process table (psutil:
Linux and macOS) after the servers were stopped and kills every live process of the run: those carrying its
marker (both systems); on Linux also those the runner is parent or subreaper of that started after the run
began (:meth:`Reaping.begin` notes when), with their descendants, and every process in the process group of
one of those. It says which they were.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass

import psutil

__all__ = ["MARKER_ENV", "SERVER_ENV", "Leftover", "Reaping", "marked_processes"]

MARKER_ENV = "CCWEB_CONFORMANCE_RUN"
SERVER_ENV = "CCWEB_CONFORMANCE_SERVER"
"""Names one spawned server, so what it left can be stopped with it (before its pipes are closed)."""
PR_SET_CHILD_SUBREAPER = 36
KILL_WAIT = 2.0
"""Seconds to wait for leftovers to die after SIGKILL."""
_GONE = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def _now_ticks() -> int | None:
    """Clock ticks since boot now (CLOCK_BOOTTIME: what /proc/uptime says), floored as start times are."""
    try:
        return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))
    except (AttributeError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class _Stat:
    """A process's place in the tree; ``started``: in clock ticks since boot (psutil adds the boot time to them:
    taken off)."""

    pid: int
    state: str
    parent: int
    group: int
    started: int


def _stat(process: psutil.Process, boot_time: float) -> _Stat | None:
    try:
        with process.oneshot():
            started = round((process.create_time() - boot_time) * os.sysconf("SC_CLK_TCK"))
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


def marked_processes(run_marker: str, name: str = MARKER_ENV) -> list[Leftover]:
    """Live processes (not zombies) whose environment has ``name=run_marker``, the runner itself excluded."""
    found = []
    for process in psutil.process_iter():  # psutil keeps these objects between calls: no re-reading
        if process.pid == os.getpid():
            continue
        if _carries_marker(process, name, run_marker) and _state(process.pid) not in _GONE:
            found.append(Leftover(process.pid, _command(process.pid)))
    return sorted(found, key=lambda leftover: leftover.pid)


def _holding(pipes: set[int]) -> list[Leftover]:
    """Live processes (the runner excluded) with one of these pipes (by inode) open: Linux's /proc."""
    wanted = {f"pipe:[{inode}]" for inode in pipes}
    found = []
    for pid in psutil.pids():  # each run stops a server this way: only a holder's state is read (a zombie holds none)
        if pid == os.getpid():
            continue
        try:
            links = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        except OSError:
            continue
        if links & wanted and _state(pid) not in _GONE and not _starting_here(pid):
            found.append(Leftover(pid, _command(pid)))
    return found


def _starting_here(pid: int) -> bool:
    """Whether ``pid`` is the runner's own child between fork and exec: a server another lane is starting, which
    holds every descriptor of the runner's until its exec closes them (killed, its start would seem to succeed
    and the server to die at once)."""
    try:
        process = psutil.Process(pid)
        return process.ppid() == os.getpid() and process.cmdline() == psutil.Process().cmdline()
    except (psutil.Error, OSError):
        return False


def _adopted(began: int) -> list[Leftover]:
    """Live processes found by parentage: the runner's children started since ``began`` (clock ticks since
    boot), their descendants, and every process in one of their process groups."""
    me = os.getpid()
    boot_time = psutil.boot_time()
    table = [info for process in psutil.process_iter() if (info := _stat(process, boot_time))]
    alive = {info.pid: info for info in table if info.state not in _GONE and info.pid != me}
    found = {pid for pid, info in alive.items() if info.parent == me and info.started >= began}
    grown = True
    while grown:
        groups = {alive[pid].group for pid in found} - {os.getpgrp()}
        more = {
            pid
            for pid, info in alive.items()
            if pid not in found and (info.parent in found or (info.group in groups and info.started >= began))
        }
        found |= more
        grown = bool(more)
    return [Leftover(pid, _command(pid)) for pid in sorted(found)]


class Reaping:
    """One run's part in stopping what its servers leave: its marker, when it began, whether the runner is a
    subreaper, and the leftovers stopped so far."""

    def __init__(self) -> None:
        self.marker = f"{os.getpid()}-{secrets.token_hex(6)}"
        """The run's marker, put into every spawned process's environment where the runner is no subreaper."""
        self.subreaping = False
        """True once the runner is a child subreaper: leftovers are found by parentage, servers carry no marker."""
        self._began: int | None = None
        """When the run began, in clock ticks since boot (a process's start time on Linux); None outside it."""
        self._servers = itertools.count(1)
        self._marked = False
        """True once :meth:`marks` handed out the marker: until then no process can carry it."""
        self._killed: list[Leftover] = []
        self._lock = threading.Lock()

    def begin(self) -> bool:
        """The run begins: make the runner the reaper of its orphaned descendants (Linux; False where unsupported)
        and note when, so :meth:`sweep` stops the runner's children started since."""
        if not sys.platform.startswith("linux"):
            return False
        self._began = _now_ticks()
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            self.subreaping = int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
        return self.subreaping

    def end(self) -> None:
        """The run is over: from now on :meth:`sweep` goes by the marker only."""
        self._began = None

    def server_token(self) -> str:
        """A new server's own mark (``SERVER_ENV``): the run's marker and the server's number in the run."""
        return f"{self.marker}-{next(self._servers)}"

    def marks(self, server: str | None = None) -> dict[str, str]:
        """The variables a spawned process carries so its leftovers are found: none where the runner is a
        subreaper (parentage finds them); elsewhere the run's marker, and ``server``'s own mark when given."""
        if self.subreaping:
            return {}
        self._marked = True
        found = {MARKER_ENV: self.marker}
        if server is not None:
            found[SERVER_ENV] = server
        return found

    def kill_marked(self, name: str, value: str) -> list[Leftover]:
        """Kill the live processes whose environment has ``name=value`` (what one server left); remember them."""
        return self._remember(_kill(marked_processes(value, name)))

    def kill_pipe_holders(self, pipes: set[int]) -> list[Leftover]:
        """Kill the live processes that hold one of a stopped server's pipes (what it left that left its group).

        A process of the server's that lost its parent and left its group is found here by the pipes it
        inherited; one that closed them is found by the run's sweep (parentage: the runner is its subreaper).
        """
        return self._remember(_kill(_holding(pipes)) if pipes and sys.platform.startswith("linux") else [])

    def _remember(self, leftovers: list[Leftover]) -> list[Leftover]:
        with self._lock:
            self._killed.extend(leftovers)
        return leftovers

    def take_killed(self) -> list[Leftover]:
        """The leftovers :meth:`kill_marked` and :meth:`kill_pipe_holders` stopped since the last call."""
        with self._lock:
            taken, self._killed = self._killed, []
        return taken

    def adopted_processes(self) -> list[Leftover]:
        """Live processes of the run found by parentage (none outside the run): see :func:`_adopted`."""
        return [] if self._began is None else _adopted(self._began)

    def sweep(self) -> list[Leftover]:
        """Kill every live process of the run (by marker, parentage and process group); the ones that were running.

        The environment of every process on the machine is read only when the marker was handed out (the runner is
        no subreaper): a subreaper's servers carry none, and a marker made of its pid and a random token is no other
        run's."""
        marked = marked_processes(self.marker) if self._marked else []
        found = {leftover.pid: leftover for leftover in marked + self.adopted_processes()}
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
