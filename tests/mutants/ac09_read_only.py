"""Mutants killed by scenarios of features/ccweb_features/ac09_read_only.feature."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from ccweb_reference import store
from mutants.patching import _BOM, _after_read, _before
from mutants.registry import mutant


@mutant(
    "marks_read",
    "RO-1",
    "A successful call changes nothing",
    "reading saves the session back with hasUnread false (the load-and-save path)",
)
def _() -> None:
    def mark_read(self: store.SessionStore, conversation_id: str) -> None:
        path = Path(self.root) / f"{conversation_id}.json"
        document = json.loads(path.read_bytes().removeprefix(_BOM))
        document["hasUnread"] = False
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")

    _after_read(mark_read)


@mutant(
    "touches_mtime",
    "RO-1",
    "Many calls in a row change nothing",
    "reading touches the file's modification time",
)
def _() -> None:
    _after_read(lambda self, conversation_id: os.utime(Path(self.root) / f"{conversation_id}.json"))


@mutant(
    "creates_cache_file",
    "RO-2",
    "A successful call changes nothing",
    "reading leaves a cache file in the sessions directory",
)
def _() -> None:
    def write_cache(self: store.SessionStore, conversation_id: str) -> None:
        (Path(self.root) / f".{conversation_id}.read-cache").write_text("{}", encoding="utf-8")

    _after_read(write_cache)


@mutant(
    "touches_run_folder",
    "RO-2",
    "A successful call changes nothing",
    "reading drops a marker file into the conversation's running-state folder <id>-run/",
)
def _() -> None:
    def mark(self: store.SessionStore, conversation_id: str) -> None:
        folder = Path(self.root) / f"{conversation_id}-run"
        if folder.is_dir():
            (folder / "last-read").write_text("x", encoding="utf-8")

    _after_read(mark)


@mutant(
    "cache_file_per_process",
    "RO-2",
    "Failing calls change nothing either",
    "every call (re)writes .cache-<pid> in the sessions directory: only the first call creates it",
)
def _() -> None:
    def write_cache(self: store.SessionStore, conversation_id: str) -> None:
        (self.root / f".cache-{os.getpid()}").write_text("{}", encoding="utf-8")

    _before("read_file", write_cache)


@mutant(
    "debounced_mark_read",
    "RO-1",
    "A successful call changes nothing",
    "a debounced 'mark read' saves an unread session with hasUnread false 200 ms after each successful read",
)
def _() -> None:
    def mark_read_later(self: store.SessionStore, conversation_id: str) -> None:
        path = Path(self.root) / f"{conversation_id}.json"

        def save() -> None:
            try:
                document = json.loads(path.read_bytes().removeprefix(_BOM))
                if document.get("hasUnread") is not True:
                    return
                document["hasUnread"] = False
                path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
            except (OSError, ValueError):
                pass

        timer = threading.Timer(0.2, save)
        timer.daemon = True
        timer.start()

    _after_read(mark_read_later)


@mutant(
    "migrates_old_files",
    "RO-1",
    "A file of an older shape is read, never migrated",
    "a file without the newer agent field is migrated on read (saved back with agent added)",
)
def _() -> None:
    def migrate(self: store.SessionStore, conversation_id: str) -> None:
        path = Path(self.root) / f"{conversation_id}.json"
        document = json.loads(path.read_bytes().removeprefix(_BOM))
        if isinstance(document, dict) and "agent" not in document:
            document["agent"] = "claude"
            path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")

    _after_read(migrate)


@mutant(
    "transient_lock_file",
    "RO-2",
    "A successful call changes nothing",
    "each read holds <id>.json.lock while it reads, and removes it afterwards",
)
def _() -> None:
    original = store.SessionStore.read_messages

    def read_messages(self: store.SessionStore, conversation_id: str) -> Any:
        lock = Path(self.root) / f"{conversation_id}.json.lock"
        lock.write_text(str(os.getpid()), encoding="utf-8")
        try:
            return original(self, conversation_id)
        finally:
            lock.unlink(missing_ok=True)

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]
