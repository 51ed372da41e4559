"""Results of unchanged conversation files, so repeated calls do not re-read them (REG-2 safe).

A result is keyed on the identity and times (device, inode, size, mtime_ns, ctime_ns) of
the file it was read from, taken with ``fstat`` on the descriptor read, together with the
arguments; a call looks it up under the same of the file its conversation ID opens now. Any
write, rename, chmod or link change moves at least one of them, so a changed file never hits,
and a result read from another file (a folder renamed during the read) is never found under
this one's. A file changed less than
``SETTLE_NS`` ago is never cached: a file system with coarse timestamps could otherwise
keep the same times across two writes within one tick.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from typing import Any

StatKey = tuple[int, int, int, int, int]
SETTLE_NS = 2_000_000_000
CAPACITY = 64


def stat_key(info: os.stat_result) -> StatKey:
    """What identifies one version of a file."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def settled(key: StatKey, now_ns: int | None = None) -> bool:
    """True when the file's last change is old enough for its times to be trusted."""
    now = time.time_ns() if now_ns is None else now_ns
    return now - max(key[3], key[4]) > SETTLE_NS


def _copy(result: dict[str, Any]) -> dict[str, Any]:
    """A copy of a success object: its own dict, and its own list of (flat) item dicts."""
    return {
        name: [dict(item) for item in value] if isinstance(value, list) else value for name, value in result.items()
    }


class ResultCache:
    """A small LRU of success objects; callers get copies. Safe to share between threads."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """A copy of the cached result, or None."""
        with self._lock:
            result = self._entries.get(key)
            if result is None:
                return None
            self._entries.move_to_end(key)
            return _copy(result)

    def put(self, key: tuple[Any, ...], result: dict[str, Any]) -> None:
        """Remember a result, evicting the least recently used beyond capacity."""
        copied = _copy(result)
        with self._lock:
            self._entries[key] = copied
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
