"""Entries that come and go in the sessions directory while calls run (D-12: lock and temporary files).

On Linux the directory tree is watched through ``watchfiles`` (inotify): every entry created,
changed or removed during the watch is seen, even one that lived a millisecond. Where that is
not available, the modification times of the directory and of its folders stand in: an entry
created and removed again moves its folder's time, though its name is then unknown.

Only the directory's own tree is judged. inotify follows symbolic links into folders when it adds
its watches, so a link in the directory (the kit's own link scenarios make some, into the folder
that holds the directory) brings in events of whatever lies behind it: a server log beside the
directory, another run's files. An event's folders are resolved: one that lies outside the tree is
not the directory's.

What was seen is handed on as data (:class:`Seen`: the entry and its events); the reports word it in
their language (:attr:`Seen.phrase`).
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.ledger import listing
from ccweb_conformance.i18n import Phrase, phrase
from ccweb_conformance.transport.lazy import submodule_alone
from ccweb_conformance.transport.limits import check_thread_headroom

WATCH_DEBOUNCE_MS = 50
"""How long one read of the watcher may group events for."""
WATCH_STEP_MS = 10
WATCH_TIMEOUT_MS = 30
"""How long a read waits when nothing is pending: the kernel has queued every event by then."""
WATCH_DRAIN_MS = 500
"""The longest one look at the events reads for. Beside a live writer (cc-web saving every 20 ms,
another run) the directory is never quiet for WATCH_TIMEOUT_MS, so reading until it is never
ended; every event queued before the look is in its first read (at most WATCH_DEBOUNCE_MS)."""
WATCH_THREADS = 4
"""Threads that must remain below the process limit before the watcher (one thread of its own) starts."""
_KINDS = {1: "created", 2: "changed", 3: "removed"}
"""watchfiles' change numbers."""
_ORDER = ("created", "changed", "removed", "touched")
"""The order events are named in: as they happen to an entry."""
FOLDER_TIME = "folder_time"
"""The one event seen without inotify: an entry came or went in the folder (its modification time moved)."""
UNDECODABLE = "undecodable"
"""The one event of an entry whose name is not UTF-8: watchfiles stops at it, naming it escaped (``\\xFF.tmp``)."""
_UNDECODABLE_PATH = re.compile(r'^Unable to decode path "(?P<path>.*)" to string$', re.DOTALL)
"""watchfiles' error for such a name; its inotify watch then raises it on every read."""


@dataclass(frozen=True)
class Seen:
    """An entry that came, changed or went during the watch, and what happened to it."""

    name: str
    """The entry's path relative to the sessions directory; without inotify, the folder whose time moved."""
    events: tuple[str, ...]
    """``created``, ``changed``, ``removed`` (``touched``: another event), in that order; or :data:`FOLDER_TIME`
    or :data:`UNDECODABLE` alone."""

    @property
    def phrase(self) -> Phrase:
        """What was seen, for the reports to word in their language (``a.json.lock (created, removed)``)."""
        if self.events == (UNDECODABLE,):
            return phrase("watch.undecodable", name=self.name)
        if self.events == (FOLDER_TIME,):
            return phrase("watch.root_moved") if self.name == "." else phrase("watch.folder_moved", name=self.name)
        return phrase("watch.entry", name=self.name, events=tuple(phrase(f"watch.{e}") for e in self.events))

    def __str__(self) -> str:
        return str(self.phrase)


def _notify(root: Path) -> Any | None:
    """A started inotify watcher of the tree, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    # Its thread starts in Rust, which aborts the process (exit 134, servers and folder left) when it cannot.
    check_thread_headroom(WATCH_THREADS, "the sessions directory's watcher")
    try:
        rust_notify = submodule_alone("watchfiles._rust_notify")  # optional: Linux only

        return rust_notify.RustNotify([str(root)], False, False, 50, True, True)
    except (ImportError, OSError, RuntimeError, TypeError):  # no watchfiles, no inotify left, another API
        return None


def _folder_times(root: Path) -> dict[str, int]:
    """The modification time of the directory and of every folder in it, by relative path."""
    times: dict[str, int] = {}
    for name in [".", *sorted(listing(root))]:
        try:
            info = os.lstat(root / name)
        except OSError:
            continue
        if os.path.isdir(root / name) and not os.path.islink(root / name):
            times[name] = info.st_mtime_ns
    return times


class EntryWatch:
    """Watches the sessions directory from creation until :meth:`close`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._real = Path(os.path.realpath(root))
        self._notify = _notify(root)
        self._times = _folder_times(root) if self._notify is None else {}
        self._events: dict[str, set[str]] = {}
        self.still_changing = False
        """True once a look ended at WATCH_DRAIN_MS with events still coming: someone else writes in the directory."""
        self.restarted = False
        """True once the watch started again after an entry whose name is not UTF-8 (events around it lost)."""

    @property
    def method(self) -> str:
        """How entries are watched, for the failure message."""
        if self._notify is None:
            return "folder modification times"
        busy = "; the directory never went quiet: someone else writes in it" if self.still_changing else ""
        again = "; started again after a name that is not UTF-8" if self.restarted else ""
        return f"inotify{busy}{again}"

    def _relative(self, path: str) -> str:
        for base in (self.root, self._real):
            if Path(path).is_relative_to(base):
                return Path(path).relative_to(base).as_posix()
        return path

    def _in_tree(self, name: str) -> str | None:
        """``name`` (relative, possibly through links) as a path of the tree itself; None when it lies outside.

        The folders on the way are resolved, the entry itself is not: inotify keeps one watch per folder, so an
        event of the directory may come named through a link that leads back into it.
        """
        path = Path(name) if Path(name).is_absolute() else self.root / name
        if "/" not in name and not Path(name).is_absolute():
            return name
        real = Path(os.path.realpath(path.parent)) / path.name
        return real.relative_to(self._real).as_posix() if real.is_relative_to(self._real) else None

    def _drain(self) -> None:
        """Read the pending events until a read finds none or WATCH_DRAIN_MS have passed (bounded: see there)."""
        deadline = time.monotonic() + WATCH_DRAIN_MS / 1000
        while self._notify is not None:  # none: nothing to read (folder times stand in)
            try:
                changes = self._notify.watch(WATCH_DEBOUNCE_MS, WATCH_STEP_MS, WATCH_TIMEOUT_MS, None)
            except RuntimeError as error:
                self._undecodable(error)
                changes = set()
            if not isinstance(changes, set):
                return
            for kind, path in changes:
                name = self._in_tree(self._relative(path))
                if name is not None:
                    self._events.setdefault(name, set()).add(_KINDS.get(kind, "touched"))
            if time.monotonic() >= deadline:
                self.still_changing = True
                return

    def _undecodable(self, error: RuntimeError) -> None:
        """An entry whose name is not UTF-8 came: kept as seen, and the watch started again (watchfiles' own is
        broken for good, the other events of its last read lost: this entry alone fails the check)."""
        found = _UNDECODABLE_PATH.match(str(error))
        if found is None:
            raise error
        name = self._in_tree(self._relative(found.group("path")))
        if name is not None:
            self._events.setdefault(name, set()).add(UNDECODABLE)
        if self._notify is not None:
            self._notify.close()
        self._notify = _notify(self.root)
        self.restarted = True

    def foreign(self, ours: set[str]) -> list[Seen]:
        """Entries not in ``ours`` that were created, changed or removed since the watch began, with what happened.

        Without inotify: the folders whose modification time moved (an entry came or went in them).
        """
        self._drain()
        found = [
            Seen(name, (UNDECODABLE,) if UNDECODABLE in kinds else tuple(e for e in _ORDER if e in kinds))
            for name, kinds in sorted(self._events.items())
            if name not in ours
        ]
        if self._notify is None:
            now = _folder_times(self.root)
            found += [
                Seen(name, (FOLDER_TIME,)) for name, before in self._times.items() if now.get(name, before) != before
            ]
        return found

    def close(self) -> None:
        """Stop watching."""
        if self._notify is not None:
            self._notify.close()
            self._notify = None
