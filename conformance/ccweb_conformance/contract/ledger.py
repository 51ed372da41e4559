"""The read-only audit of the whole sessions directory (RO-2).

The ledger knows what was in the sessions directory before the run (with ``--sessions-dir``)
and what the runner itself has written since; :meth:`SessionsLedger.audit` names every
entry, at any depth, that is neither, and every expected entry that is gone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ccweb_conformance.contract.conversations import ConversationFiles

MAX_NAMED = 20
"""Entries named in one audit message; the count says how many more there are."""


def listing(root: Path) -> set[str]:
    """Every entry under ``root`` as a relative POSIX path, at any depth; links are not followed."""
    found: set[str] = set()
    for folder, directories, names in os.walk(root, followlinks=False):
        base = Path(folder).relative_to(root)
        for name in (*directories, *names):
            found.add((base / name).as_posix())
    return found


@dataclass(frozen=True)
class Audit:
    """What the sessions directory holds beyond (``extra``) or short of (``missing``) the ledger."""

    extra: tuple[str, ...]
    missing: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """Nothing extra, nothing missing."""
        return not self.extra and not self.missing

    def describe(self) -> str:
        """One line per kind of difference, every entry named (up to MAX_NAMED each)."""
        lines = []
        for label, entries in (("entries nobody but the server can have written", self.extra),
                               ("entries that disappeared", self.missing)):
            if entries:
                named = ", ".join(entries[:MAX_NAMED])
                more = f" and {len(entries) - MAX_NAMED} more" if len(entries) > MAX_NAMED else ""
                lines.append(f"{label}: {named}{more}")
        return "\n".join(lines)


class SessionsLedger:
    """What the sessions directory should hold: what was there before plus what the runner wrote."""

    def __init__(self, sessions_dir: Path, *, shared: bool = False) -> None:
        self.root = sessions_dir
        self.before = frozenset(listing(sessions_dir))
        self._writers: list[ConversationFiles] = []
        self.shared = shared
        """A directory the runner does not own (--sessions-dir): another run or a live cc-web may
        write in it, so only entries named after this run's conversations are judged (DESIGN 4)."""
        self._prefixes: set[str] = set()

    def register(self, files: ConversationFiles) -> None:
        """Count the files this writer creates as the runner's own."""
        self._writers.append(files)
        self._prefixes.add(files.run_prefix)

    def judged(self, name: str) -> bool:
        """Whether the audit judges this entry: every one in the runner's own directory; in a
        shared one, those whose top-level name starts with this run's prefix (its conversation IDs)."""
        top = name.split("/", 1)[0]
        return not self.shared or any(top.startswith(prefix) for prefix in self._prefixes)

    def unregister(self, files: ConversationFiles) -> None:
        """The writer removed its files (or is done)."""
        self._writers = [w for w in self._writers if w is not files]

    def expected(self) -> set[str]:
        """Every entry the directory should hold now (writers track each file they put in a folder)."""
        wanted = set(self.before)
        for writer in self._writers:
            wanted |= {path.relative_to(self.root).as_posix() for path in writer.created()}
        return wanted

    def audit(self) -> Audit:
        """Compare the directory with the ledger now."""
        present = {name for name in listing(self.root) if self.judged(name)}
        wanted = {name for name in self.expected() if self.judged(name)}
        return Audit(tuple(sorted(present - wanted)), tuple(sorted(wanted - present)))
