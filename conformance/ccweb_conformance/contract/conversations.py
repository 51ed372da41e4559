"""Conversation files for scenarios, written as cc-web writes them.

Every conversation gets a fresh unique ID, shaped like cc-web's (a UUID), so a server that
caches by ID never sees stale data and cannot tell a test conversation from a real one. Files
are created exclusively (never overwriting anything), and :meth:`ConversationFiles.remove_all`
removes exactly what was created, nothing else.

An ID is derived from its scenario's prefix and its alias, so it is known before the scenario
runs (:mod:`ccweb_conformance.suite.lookahead`). In the runner's own directory the prefix is a
secret and the whole UUID looks random; in a directory it does not own (``--sessions-dir``) every
ID starts with the run's 12 random hex digits (see :func:`new_suite_prefix`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.jsontext import indented

ID_PREFIX = ccweb_spec.binding().fixture_prefix


def new_run_prefix() -> str:
    """A prefix unique to one run, made only of ID characters."""
    return f"{ID_PREFIX}-{secrets.token_hex(4)}"


def scenario_prefix(run_prefix: str, number: int) -> str:
    """The ID prefix of the ``number``-th scenario of a run (1-based)."""
    return f"{run_prefix}-{number:03d}"


KEPT_DIGITS = 12
"""Hex digits every ID of a run shares in a directory the runner does not own: the first two UUID groups."""
_KEPT = re.compile(r"([0-9a-f]{8})-([0-9a-f]{4})(?=-|$)")


def new_suite_prefix(*, shared_directory: bool) -> str:
    """The secret a run's conversation IDs are derived from.

    In the runner's own directory: 16 hex digits that show in no ID. In a directory it does not
    own: ``xxxxxxxx-xxxx``, the first 12 hex digits of every ID, so that the run finds (and
    removes) only its own entries: a live directory of 100,000 random UUIDs holds one starting
    with them once in 2.8 billion runs (48 bits; 32 would be once in 43,000).
    """
    token = secrets.token_hex(KEPT_DIGITS // 2)
    return f"{token[:8]}-{token[8:]}" if shared_directory else secrets.token_hex(8)


class ConversationFiles:
    """Creates and tracks conversation files in a sessions directory."""

    def __init__(self, sessions_dir: Path, run_prefix: str) -> None:
        self.sessions_dir = sessions_dir
        self.run_prefix = run_prefix
        self._sequence = 0
        self._aliases: set[str] = set()
        self._created: list[Path] = []
        self._outside: Path | None = None
        self._siblings: list[Path] = []

    def new_id(self, alias: str) -> str:
        """The conversation ID for ``alias`` (:func:`conversation_id`), so it can be known in advance."""
        if not alias.isalnum() or not alias.isascii():
            raise ValueError(f"conversation alias {alias!r} must be ASCII letters and digits")
        if alias in self._aliases:
            raise ValueError(f"conversation alias {alias!r} is already used in this scenario")
        self._aliases.add(alias)
        self._sequence += 1
        return conversation_id(self.run_prefix, alias)

    def unique_id(self, stem: str) -> str:
        """A fresh ID on every call (``<prefix>-<n>-<stem>``), for generated cases."""
        self._sequence += 1
        return f"{self.run_prefix}-{self._sequence:04d}-{stem}"

    def path_of(self, conversation_id: str) -> Path:
        """Where the file of a conversation lives."""
        return self.sessions_dir / f"{conversation_id}.json"

    def _track(self, path: Path) -> Path:
        self._created.append(path)
        return path

    def write_bytes(self, conversation_id: str, data: bytes) -> Path:
        """Create the conversation file with exactly these bytes; never overwrites."""
        path = self.path_of(conversation_id)
        with path.open("xb") as handle:
            handle.write(data)
        return self._track(path)

    def write_session(self, conversation_id: str, session: dict[str, Any], *, compact: bool = False) -> Path:
        """Create the file as cc-web does: ``JSON.stringify`` output in raw UTF-8, two-space indent or compact."""
        return self.write_bytes(conversation_id, session_bytes(session, compact=compact))

    def delete(self, conversation_id: str) -> None:
        """Delete one of our own conversation files (it is no longer expected in the directory)."""
        path = self.path_of(conversation_id)
        if path not in self._created:
            raise ValueError(f"refusing to delete {path.name}: not created by this run")
        path.unlink()
        self._created.remove(path)

    def rewrite(self, conversation_id: str, data: bytes) -> None:
        """Rewrite one of our own files in place (same inode), as an editor would."""
        path = self.path_of(conversation_id)
        if path not in self._created:
            raise ValueError(f"refusing to rewrite {path.name}: not created by this run")
        with path.open("r+b") as handle:
            handle.write(data)
            handle.truncate()

    def make_directory(self, conversation_id: str) -> Path:
        """A directory named like the conversation's file."""
        path = self.path_of(conversation_id)
        path.mkdir()
        return self._track(path)

    def make_run_folder(self, conversation_id: str) -> Path:
        """cc-web's running-state folder ``<id>-run/`` with one file in it."""
        folder = self.sessions_dir / f"{conversation_id}-run"
        folder.mkdir()
        self._track(folder)
        state = folder / "state.json"
        state.write_text('{"pid": 4242, "startedAt": "2026-11-30T09:00:00.000Z"}\n')
        self._track(state)
        return folder

    def make_link(self, conversation_id: str, target: Path) -> Path:
        """A symbolic link ``<id>.json`` pointing at ``target`` (relative when inside)."""
        path = self.path_of(conversation_id)
        try:
            link_target = (
                os.path.relpath(target, self.sessions_dir) if target.is_relative_to(self.sessions_dir) else target
            )
        except ValueError:
            link_target = target
        path.symlink_to(link_target)
        return self._track(path)

    def outside_file(self, session: dict[str, Any]) -> Path:
        """A conversation file outside the sessions directory, in a temporary folder of ours."""
        if self._outside is None:
            self._outside = Path(tempfile.mkdtemp(prefix="ccweb-conformance-outside-"))
        path = self._outside / f"outside-{self._sequence}.json"
        path.write_bytes(session_bytes(session))
        return path

    def make_link_text(self, conversation_id: str, text: str) -> Path:
        """A symbolic link ``<id>.json`` whose target is exactly ``text`` (relative to the directory)."""
        path = self.path_of(conversation_id)
        path.symlink_to(text)
        return self._track(path)

    def make_folder(self, stem: str) -> Path:
        """A folder ``<prefix>-<stem>/`` inside the sessions directory (its files are tracked one by one)."""
        folder = self.sessions_dir / f"{self.run_prefix}-{stem}"
        folder.mkdir()
        return self._track(folder)

    def make_dot_folder(self, stem: str) -> Path:
        """A folder ``..<prefix>-<stem>/`` inside the sessions directory: in the tree, though its name starts ``..``."""
        folder = self.sessions_dir / f"..{self.run_prefix}-{stem}"
        folder.mkdir()
        return self._track(folder)

    def write_in_folder(self, folder: Path, conversation_id: str, session: dict[str, Any]) -> Path:
        """A conversation file inside one of our folders; never overwrites."""
        path = folder / f"{conversation_id}.json"
        with path.open("xb") as handle:
            handle.write(session_bytes(session))
        return self._track(path)

    def sibling_folder(self, stem: str) -> Path:
        """A folder beside the sessions directory whose name starts with the directory's name.

        ``<sessions>-<stem>-<prefix>``, next to the directory's real path: with the runner's own
        directory its parent is the runner's temporary folder; with ``--sessions-dir`` the name
        carries this run's unique prefix. Removed by :meth:`remove_all`; raises OSError when the
        parent is not writable.
        """
        real = Path(os.path.realpath(self.sessions_dir))
        folder = real.parent / f"{real.name}-{stem}-{self.run_prefix}"
        folder.mkdir()
        self._siblings.append(folder)
        return folder

    def created(self) -> list[Path]:
        """Everything created in the sessions directory so far."""
        return list(self._created)

    def remove_all(self) -> None:
        """Remove exactly what this object created."""
        for path in reversed(self._created):
            if path.is_symlink() or path.is_file():
                path.unlink(missing_ok=True)
            elif path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
        self._created.clear()
        for folder in self._siblings:
            shutil.rmtree(folder, ignore_errors=True)
        self._siblings.clear()
        if self._outside is not None:
            shutil.rmtree(self._outside, ignore_errors=True)
            self._outside = None


def conversation_id(prefix: str, alias: str) -> str:
    """The ID a scenario's conversation ``alias`` gets under ``prefix``: a version-4 UUID, as cc-web's.

    Derived from both (so known in advance); it starts with the prefix's ``xxxxxxxx-xxxx`` when the
    prefix has one (a directory not the runner's), and is upper-case when the alias has upper-case
    letters (IDs are case-sensitive: a scenario checks that the case is kept).
    """
    kept = _KEPT.match(prefix)
    for salt in range(64):
        digits = list(hashlib.sha256(f"{prefix}/{alias}/{salt}".encode()).hexdigest()[:32])
        if kept is not None:
            digits[:KEPT_DIGITS] = kept[1] + kept[2]
        digits[12] = "4"
        digits[16] = "89ab"[int(digits[16], 16) % 4]
        h = "".join(digits)
        text = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        if not any(c.isupper() for c in alias):
            return text
        if any(c in "abcdef" for c in text):
            return text.upper()
    raise AssertionError("unreachable: 64 UUIDs without a hex letter")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def session_bytes(session: dict[str, Any], *, compact: bool = False) -> bytes:
    """A session object as cc-web persists it: ``JSON.stringify(session, null, 2)`` (or compact) in raw UTF-8.

    As ``JSON.stringify`` does, only a lone surrogate is written as a ``\\uXXXX`` escape (lower-case hex):
    every other character, CJK and emoji included, is written as its own UTF-8 bytes.
    """
    text = (
        json.dumps(session, ensure_ascii=False, separators=(",", ":"))
        if compact
        else indented(session, ensure_ascii=False)
    )
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match[0]):04x}", text).encode("utf-8")


def cc_web_session(conversation_id: str, messages: Any, **fields: Any) -> dict[str, Any]:
    """A session object with cc-web's usual fields around ``messages``."""
    return {
        "id": conversation_id,
        "title": "conformance fixture",
        "created": "2026-11-30T09:00:00.000Z",
        "updated": "2026-11-30T09:30:00.000Z",
        "agent": "claude",
        "hasUnread": False,
        **fields,
        "messages": messages,
    }
