"""Mutants killed by scenarios of features/ccweb_features/ac10_regression.feature."""

from __future__ import annotations

import os
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
