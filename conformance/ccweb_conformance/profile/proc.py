"""What a spawned server process group has read and how much memory it holds, through psutil.

A spawned server leads its own process group (the runner starts it in a new session), so
the figures cover a wrapper and its children too (``npx``, ``uv run``, a shell). Memory
is summed over the group: for one process that is its own figure, for several an upper bound.

psutil gives the members, the resident memory (Linux and macOS) and the bytes read (Linux:
``rchar`` and ``read_bytes``; macOS has no such counters, so the read figures are None there).
The resident high-water mark is the kernel's ``VmHWM``, which psutil does not report
(giampaolo/psutil#383): it is read from ``/proc/<pid>/status`` on Linux, None elsewhere.
Where the group cannot be seen at all the sample is None and the profile says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import psutil

PROC = Path("/proc")


@dataclass(frozen=True)
class GroupSample:
    """Counters of every process in one process group, at one moment."""

    rchar: dict[int, int] | None
    """Bytes each process read through read(2)-like calls (files, pipes, sockets); None where not counted."""
    read_bytes: dict[int, int] | None
    """Bytes each process caused to be fetched from storage (0 when served from the page cache)."""
    rss_bytes: int
    """Resident memory now, summed."""
    peak_bytes: int | None
    """Resident memory high-water mark (VmHWM), summed; None where the system does not report it."""

    def read_since(self, earlier: GroupSample) -> tuple[int, int] | None:
        """(rchar, read_bytes) read between ``earlier`` and this sample, by processes in both; None: not counted."""
        if self.rchar is None or earlier.rchar is None or self.read_bytes is None or earlier.read_bytes is None:
            return None
        common = self.rchar.keys() & earlier.rchar.keys()
        rchar = sum(max(self.rchar[p] - earlier.rchar[p], 0) for p in common)
        storage = sum(max(self.read_bytes.get(p, 0) - earlier.read_bytes.get(p, 0), 0) for p in common)
        return rchar, storage


def group_members(leader: int) -> list[int]:
    """The pids whose process group is ``leader``'s (the leader first, when alive)."""
    members: list[int] = []
    for pid in psutil.pids():
        try:
            if os.getpgid(pid) == leader:
                members.append(pid)
        except OSError:  # gone meanwhile, or not ours to ask
            continue
    return sorted(members, key=lambda pid: pid != leader)


def high_water_mark(pid: int) -> int | None:
    """The resident high-water mark of ``pid`` in bytes (Linux ``VmHWM``), or None where it is not reported."""
    try:
        text = (PROC / str(pid) / "status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    return next((int(line.split()[1]) * 1024 for line in text.splitlines() if line.startswith("VmHWM:")), None)


def sample_group(leader: int) -> GroupSample | None:
    """The counters of ``leader``'s process group, or None where no member can be read."""
    rchar: dict[int, int] = {}
    read_bytes: dict[int, int] = {}
    rss = peak = 0
    seen = counted = peaks = 0
    for pid in group_members(leader):
        try:
            process = psutil.Process(pid)
            with process.oneshot():
                resident = process.memory_info().rss
                io = process.io_counters() if hasattr(process, "io_counters") else None
        except (psutil.Error, OSError):
            continue  # exited meanwhile, or not ours to read
        seen += 1
        rss += resident
        chars = getattr(io, "read_chars", None)  # Linux only: rchar
        if io is not None and chars is not None:
            counted += 1
            rchar[pid] = int(chars)
            read_bytes[pid] = int(io.read_bytes)
        mark = high_water_mark(pid)
        if mark is not None:
            peaks += 1
            peak += mark
    if not seen:
        return None
    every_io = counted == seen
    return GroupSample(
        rchar if every_io else None, read_bytes if every_io else None, rss, peak if peaks == seen else None
    )
