"""What a spawned server process group has read and how much memory it holds, from Linux ``/proc``.

A spawned server leads its own process group (the runner starts it in a new session), so
the figures cover a wrapper and its children too (``npx``, ``uv run``, a shell). Memory
is summed over the group: for one process that is its own figure, for several an upper bound.
Where ``/proc`` is missing or unreadable the sample is None and the profile says so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class GroupSample:
    """Counters of every process in one process group, at one moment."""

    rchar: dict[int, int]
    """Bytes each process read through read(2)-like calls (files, pipes, sockets)."""
    read_bytes: dict[int, int]
    """Bytes each process caused to be fetched from storage (0 when served from the page cache)."""
    rss_bytes: int
    """Resident memory now (VmRSS), summed."""
    peak_bytes: int
    """Resident memory high-water mark (VmHWM), summed."""

    def read_since(self, earlier: GroupSample) -> tuple[int, int]:
        """(rchar, read_bytes) read between ``earlier`` and this sample, by processes in both."""
        common = self.rchar.keys() & earlier.rchar.keys()
        rchar = sum(max(self.rchar[p] - earlier.rchar[p], 0) for p in common)
        storage = sum(max(self.read_bytes.get(p, 0) - earlier.read_bytes.get(p, 0), 0) for p in common)
        return rchar, storage


def _fields(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in path.read_text(encoding="ascii", errors="replace").splitlines():
        key, _, value = line.partition(":")
        found[key.strip()] = value.strip()
    return found


def group_members(leader: int) -> list[int]:
    """The pids whose process group is ``leader``'s (the leader first, when alive)."""
    members: list[int] = []
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == leader:
            members.append(int(entry.name))
    return sorted(members, key=lambda pid: pid != leader)


def sample_group(leader: int) -> GroupSample | None:
    """The counters of ``leader``'s process group, or None where /proc cannot tell."""
    if not (PROC / str(os.getpid()) / "io").exists():
        return None
    rchar: dict[int, int] = {}
    read_bytes: dict[int, int] = {}
    rss = peak = 0
    for pid in group_members(leader):
        try:
            io = _fields(PROC / str(pid) / "io")
            status = _fields(PROC / str(pid) / "status")
        except OSError:
            continue  # exited meanwhile, or not ours to read
        rchar[pid] = int(io["rchar"])
        read_bytes[pid] = int(io["read_bytes"])
        rss += int(status.get("VmRSS", "0 kB").split()[0]) * 1024
        peak += int(status.get("VmHWM", "0 kB").split()[0]) * 1024
    return GroupSample(rchar, read_bytes, rss, peak) if rchar else None
