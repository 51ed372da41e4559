"""Mutants killed by scenarios of features/ccweb_features/ac10_regression.feature."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ccweb_reference import core, store, tool
from mutants.patching import _ORIGINAL_LIST
from mutants.registry import mutant


@mutant(
    "cached_by_id",
    "REG-2",
    "A change to the file is visible in the next call",
    "messages are cached by conversation ID (stale after a change)",
)
def _() -> None:
    original = store.SessionStore.read_messages
    cache: dict[str, list[Any]] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        key = f"{self.root}/{conversation_id}"
        if key not in cache:
            cache[key] = original(self, conversation_id)
        return cache[key]

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "cached_by_size_and_mtime",
    "REG-2",
    "A rewrite of the same size and time is visible too",
    "messages are cached by (ID, size, mtime): a same-size rewrite in the same instant is missed",
)
def _() -> None:
    original = store.SessionStore.read_messages
    cache: dict[tuple[str, int, int], list[Any]] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        try:
            info = os.stat(Path(self.root) / f"{conversation_id}.json")
        except OSError:
            return original(self, conversation_id)
        key = (f"{self.root}/{conversation_id}", info.st_size, info.st_mtime_ns)
        if key not in cache:
            cache[key] = original(self, conversation_id)
        return cache[key]

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "paging_state",
    "REG-1",
    "The same call gives the same result every time",
    "a repeated call continues where the previous one stopped (hidden per-conversation cursor)",
)
def _() -> None:
    seen: dict[str, int] = {}

    def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
        calls = seen.get(conversation_id, 0)
        seen[conversation_id] = calls + 1
        found = core.candidates(messages)
        if calls and found:
            kept = [m for m in messages if core.candidate_of(m) != found[-1]]
            return _ORIGINAL_LIST(conversation_id, kept, limit, max_chars)
        return _ORIGINAL_LIST(conversation_id, messages, limit, max_chars)

    tool.list_user_inputs = list_user_inputs


def _cache_errors(code: str) -> None:
    """Remember a ToolError with ``code`` per conversation ID, forever."""
    original = store.SessionStore.read_messages
    errors: dict[str, core.ToolError] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> Any:
        key = f"{self.root}/{conversation_id}"
        if key in errors:
            raise errors[key]
        try:
            return original(self, conversation_id)
        except core.ToolError as error:
            if error.code == code:
                errors[key] = error
            raise

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "caches_not_found",
    "REG-3",
    "A conversation saved after a call that did not find it is found",
    "conversation_not_found is cached per ID: a conversation saved after its first call stays not found",
)
def _() -> None:
    _cache_errors("conversation_not_found")


@mutant(
    "caches_unreadable",
    "REG-3",
    "A conversation repaired after a call that could not read it is read",
    "conversation_unreadable is cached per ID: a call that landed during a save stays unreadable until restart",
)
def _() -> None:
    _cache_errors("conversation_unreadable")


@mutant(
    "serves_deleted_from_cache",
    "REG-3",
    "A conversation deleted after a call that read it is not found",
    "a result cache keyed on the file's times falls back to the last result when the file is gone",
)
def _() -> None:
    original = store.SessionStore.read_messages
    last: dict[str, Any] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> Any:
        key = f"{self.root}/{conversation_id}"
        try:
            last[key] = original(self, conversation_id)
        except core.ToolError as error:
            if error.code != "conversation_not_found" or key not in last:
                raise
        return last[key]

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "trusts_old_files",
    "REG-2",
    "An hours-old conversation saved in place is visible in the next call",
    "a file last modified more than 2 s before its first read is cached and never checked again",
)
def _() -> None:
    original = store.SessionStore.read_messages
    trusted: dict[str, Any] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> Any:
        key = f"{self.root}/{conversation_id}"
        if key in trusted:
            return trusted[key]
        try:
            modified = os.stat(Path(self.root) / f"{conversation_id}.json").st_mtime
        except OSError:
            return original(self, conversation_id)
        messages = original(self, conversation_id)
        if time.time() - modified > 2:  # "an old file does not change any more"
            trusted[key] = messages
        return messages

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "descriptor_per_file",
    "REG-2",
    "An hours-old conversation saved by rename is visible in the next call",
    "one descriptor kept open per file and read again on each call: after a save by rename it reads the old file",
)
def _() -> None:
    original = store.SessionStore.read_file
    descriptors: dict[str, int] = {}

    def read_file(self: store.SessionStore, conversation_id: str) -> store.StoredFile:
        read = original(self, conversation_id)  # a deleted file is still not found
        real = os.path.realpath(self.root / f"{conversation_id}.json")
        kept = descriptors.get(real)
        if kept is not None:
            return store.StoredFile(os.pread(kept, self.max_file_bytes + 1, 0), read.version)
        with contextlib.suppress(OSError):
            descriptors[real] = os.open(real, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        return read

    store.SessionStore.read_file = read_file  # type: ignore[method-assign]

