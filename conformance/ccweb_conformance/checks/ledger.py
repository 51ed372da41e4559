"""The read-only audit of the whole sessions directory (RO-1, RO-2).

The ledger knows what was in the sessions directory before the run (with ``--sessions-dir``)
and what the runner itself has written since; :meth:`SessionsLedger.audit` names every
entry, at any depth, that is neither, every expected entry that is gone, and every entry of
the runner's whose fingerprint (bytes hash, size, mtime, ctime, inode) moved after the
scenario that wrote it ended.

A scenario's files are not removed when it ends: the ledger *retires* them (fingerprints them
as the scenario left them) and keeps them until :meth:`SessionsLedger.final_audit`, which waits
until the last scenario ended at least ``SETTLE_S`` ago and compares them all in one pass. A
write that lands some time after a call (a debounced "mark read" or save, a migration on read)
is then seen whatever scenario caused it, for the price of one settle delay per run.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ccweb_conformance.errors import NOT_THE_IMPLEMENTATION
from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.fixtures.held_dir import NotOurs, read_regular
from ccweb_conformance.i18n import Phrase, phrase
from ccweb_conformance.transport.waits import Waits

MAX_NAMED = 20
"""Entries named in one audit message; the count says how many more there are."""
SETTLE_S = 0.4
"""How long after a call a late write is still the call's: a debounced save lands 50-300 ms after it."""


def listing(root: Path) -> set[str]:
    """Every entry under ``root`` as a relative POSIX path, at any depth; links are not followed.

    Paths are joined as strings (:func:`_relative_name`): ``os.walk`` names each folder as ``root`` joined with its
    path, and a ``Path`` per entry cost more than the walk (a run lists the growing directory about 30 times).
    """
    top = os.fspath(root)
    found: set[str] = set()
    for folder, directories, names in os.walk(top, followlinks=False):
        base = "" if folder == top else f"{_relative_name(folder, top)}/"
        found.update(base + name for name in (*directories, *names))
    return found


def _relative_name(path: str | Path, top: str) -> str | None:
    """``path`` as a POSIX path relative to the folder ``top`` (``.`` for ``top`` itself); None outside it.

    Cut as strings: a ``Path``'s ``relative_to`` costs more than the ``lstat`` of the entry it names.
    """
    text = os.fspath(path)
    if text == top:
        return "."
    inside = os.path.join(top, "")
    return text[len(inside) :].replace(os.sep, "/") if text.startswith(inside) else None


def unlistable(root: Path) -> str | None:
    """One line when the runner cannot list the sessions directory (a write-only folder, to a runner not root).

    The read-only audit lists the directory before and after the calls; without that it would see an empty
    folder and blame the server (RO-2). The runner's environment, not the implementation's: exit 2.
    """
    try:
        with os.scandir(root):
            return None
    except OSError as error:
        cause = f"[Errno {error.errno}] {error.strerror}: {root}"
        return (
            f"the runner cannot list the sessions directory ({cause}); {NOT_THE_IMPLEMENTATION}: give the runner "
            "read and search permission on it (the read-only checks list it)"
        )


@dataclass(frozen=True)
class Fingerprint:
    """What must not change about one entry of the sessions directory (D-12)."""

    kind: str
    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    sha256: str

    def __str__(self) -> str:
        return (
            f"{self.kind}, {self.size} bytes, mtime_ns {self.mtime_ns}, ctime_ns {self.ctime_ns}, "
            f"inode {self.inode}, sha256 {self.sha256[:16] or '-'}"
        )


def fingerprint(path: Path, *, digest: bool = True) -> Fingerprint | None:
    """The fingerprint of a file, directory or link (links are not followed); None when it is gone.

    ``digest=False`` leaves the bytes unread: any write moves the change time, which no program can set back.
    The bytes are read from the entry opened without following a link or waiting (``O_NONBLOCK``), and only when
    the opened entry is a regular file: one swapped for a FIFO after the ``lstat`` is not read, nor waited on.
    """
    try:
        info = os.lstat(path)
        hashed = ""
        if digest and stat.S_ISREG(info.st_mode):
            hashed = hashlib.sha256(read_regular(path)).hexdigest()
    except NotOurs:  # swapped between the lstat and the open: what it is now
        return fingerprint(path, digest=False)
    except OSError:
        return None
    kind = "file" if stat.S_ISREG(info.st_mode) else "dir" if stat.S_ISDIR(info.st_mode) else "other"
    return Fingerprint(kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, hashed)


def fingerprints(root: Path, entries: list[Path], *, digest: bool = True) -> dict[str, Fingerprint | None]:
    """Fingerprints of these entries and of everything inside the folders among them, by relative path."""
    prints: dict[str, Fingerprint | None] = {}
    top = os.fspath(root)
    for path in entries:
        relative = _relative_name(path, top)
        if relative is None:
            continue  # a folder of ours beside the sessions directory: not the directory's business
        found = prints[relative] = fingerprint(path, digest=digest)
        for entry in sorted(path.rglob("*")) if found is not None and found.kind == "dir" else []:  # not a link's
            prints[entry.relative_to(root).as_posix()] = fingerprint(entry, digest=digest)
    return prints


RUNNER_WRITER_THREADS = ("ccweb-torn-writer", "ccweb-torn-save")
"""Threads of the runner that save conversation files while calls run (D-14): their writes are not the server's."""


def runner_writing() -> bool:
    """True while one of the runner's own writer threads runs."""
    return any(thread.name in RUNNER_WRITER_THREADS and thread.is_alive() for thread in threading.enumerate())


_FIELDS = ("kind", "size", "mtime_ns", "ctime_ns", "inode", "sha256")


def changes(before: Fingerprint | None, after: Fingerprint | None) -> str:
    """What moved, field by field (``ctime_ns 1700000000000000000 -> 1700000000500000000``), or ``gone`` /
    ``appeared``: the difference first, whatever the length of the fingerprints."""
    if before is None or after is None:
        return "appeared" if before is None else "gone"
    moved_fields = [f for f in _FIELDS if getattr(before, f) != getattr(after, f)]
    return ", ".join(f"{f} {getattr(before, f)} -> {getattr(after, f)}" for f in moved_fields)


def moved(before: dict[str, Fingerprint | None], after: dict[str, Fingerprint | None]) -> dict[str, str]:
    """The entries whose fingerprint differs, each with what changed first, then both fingerprints."""
    return {
        name: f"changed: {changes(print_before, after.get(name))}; before: {print_before}; after: {after.get(name)}"
        for name, print_before in before.items()
        if after.get(name) != print_before
    }


@dataclass(frozen=True)
class Audit:
    """What the sessions directory holds beyond (``extra``) or short of (``missing``) the ledger.

    ``changed`` names the runner's entries whose bytes, size, times or inode moved after the
    scenario that wrote them ended, each with its fingerprint before and now.
    """

    extra: tuple[str, ...]
    missing: tuple[str, ...]
    changed: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        """Nothing extra, nothing missing, nothing changed."""
        return not self.extra and not self.missing and not self.changed

    def merged(self, other: Audit) -> Audit:
        """Both audits' findings, each entry once."""
        return Audit(
            tuple(sorted({*self.extra, *other.extra})),
            tuple(sorted({*self.missing, *other.missing})),
            tuple(dict.fromkeys((*self.changed, *other.changed))),
        )

    def phrases(self) -> list[Phrase]:
        """One phrase per kind of difference, every entry named (up to MAX_NAMED each), for the reports to word."""
        found = []
        kinds = (("audit.extra", self.extra), ("audit.missing", self.missing), ("audit.changed", self.changed))
        for key, entries in kinds:
            if entries:
                more = phrase("audit.more", n=len(entries) - MAX_NAMED) if len(entries) > MAX_NAMED else ""
                found.append(phrase(key, entries=tuple(entries[:MAX_NAMED]), more=more))
        return found

    def describe(self) -> str:
        """One line per kind of difference, every entry named (up to MAX_NAMED each), in English."""
        return "\n".join(str(p) for p in self.phrases())


class SessionsLedger:
    """What the sessions directory should hold: what was there before plus what the runner wrote.

    Thread-safe: scenarios run together (``--jobs``) register and retire their files at once."""

    def __init__(
        self, sessions_dir: Path, settle_s: float = SETTLE_S, own_prefix: str | None = None, waits: Waits | None = None
    ) -> None:
        self.root = sessions_dir
        self.waits = Waits() if waits is None else waits
        """Where the final settle delay is counted (the run context's)."""
        self.before = frozenset(listing(sessions_dir))
        self.settle_s = settle_s
        self.own_prefix = own_prefix
        """In a directory the runner does not own: the prefix of every entry it judges (None: it judges all)."""
        self._writers: list[ConversationFiles] = []
        self._retired: dict[str, Fingerprint | None] = {}
        self._retired_writers: list[ConversationFiles] = []
        self._last_retired = 0.0
        self._lock = threading.Lock()

    def register(self, files: ConversationFiles) -> None:
        """Count the files this writer creates as the runner's own."""
        with self._lock:
            self._writers.append(files)

    def unregister(self, files: ConversationFiles) -> None:
        """The writer removed its files (or is done)."""
        with self._lock:
            self._writers = [w for w in self._writers if w is not files]

    def retire(self, files: ConversationFiles) -> None:
        """A scenario ended: fingerprint its entries as it left them; they stay until the final audit."""
        prints = fingerprints(self.root, files.created())
        with self._lock:
            self._retired.update(prints)
            self._retired_writers.append(files)
            self._last_retired = time.monotonic()

    def judged(self, name: str) -> bool:
        """Whether an entry is the runner's to judge: any in its own directory; elsewhere, those named after its IDs
        (``<id>.json.lock``, ``.<id>.read-cache``, ``<id>-run/`` and what is in it; in any case)."""
        if self.own_prefix is None:
            return True
        top = name.split("/", 1)[0].lower()  # an alias with capitals gets an upper-case ID
        return f"{self.own_prefix.lower()}-" in top

    def expected(self) -> set[str]:
        """Every entry the directory should hold now (writers track each file they put in a folder)."""
        wanted = set(self.before)
        base = f"{self.root}{os.sep}"
        with self._lock:
            writers = list(self._writers)
        for writer in writers:
            wanted |= {str(p)[len(base) :].replace(os.sep, "/") for p in writer.created() if str(p).startswith(base)}
        return wanted

    def audit(self, *, contents: bool = True) -> Audit:
        """Compare the directory with the ledger now: names, and (``contents``) the retired entries' fingerprints."""
        present = listing(self.root)
        wanted = self.expected()
        changed = []
        with self._lock:
            retired = list(self._retired.items()) if contents else []
        for name, before in retired:
            now = fingerprint(self.root / name)
            if now is not None and before is not None and now != before:
                changed.append(f"{name} (when its scenario ended: {before}; now: {now})")
        extra = sorted(name for name in present - wanted if self.judged(name))
        missing = sorted(name for name in wanted - present if self.judged(name))  # the owner's may come and go
        return Audit(tuple(extra), tuple(missing), tuple(changed))

    def final_audit(self) -> Audit:
        """The audit once the last scenario ended at least the settle delay ago."""
        remaining = self._last_retired + self.settle_s - time.monotonic()
        if self._retired_writers and remaining > 0:
            with self.waits.waited("settle"):
                time.sleep(remaining)
        return self.audit()

    def remove_retired(self) -> None:
        """Remove the retired scenarios' files (every one, whatever the audit said)."""
        for files in reversed(self._retired_writers):
            files.remove_all()
            self.unregister(files)
        self._retired_writers.clear()
        self._retired.clear()
