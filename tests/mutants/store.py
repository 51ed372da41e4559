"""Mutants killed by scenarios of features/ccweb_features/store.feature."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ccweb_reference import store
from ccweb_reference.core import ToolError
from mutants.patching import _BOM, _ORIGINAL_PARSE_CONVERSATION, _SURROGATE, _unreadable, _wrap_candidate
from mutants.registry import mutant


@mutant(
    "trailing_data_accepted",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "the file is parsed with raw_decode, so text after the JSON object is ignored",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            document, _end = json.JSONDecoder().raw_decode(data.removeprefix(_BOM).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        return _ORIGINAL_PARSE_CONVERSATION(json.dumps(document).encode())

    store.parse_conversation = parse


@mutant(
    "invalid_utf8_replaced",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "invalid UTF-8 is decoded with replacement characters instead of rejected",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        text = data.removeprefix(_BOM).decode("utf-8", "replace")
        return _ORIGINAL_PARSE_CONVERSATION(text.encode("utf-8"))

    store.parse_conversation = parse


@mutant(
    "bom_not_skipped", "STO-3", "A leading UTF-8 byte-order mark is ignored", "a leading BOM makes the file unreadable"
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        if data.startswith(_BOM):
            raise _unreadable("not JSON")
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse


@mutant(
    "bad_messages_as_empty",
    "STO-2",
    "messages that is not an array, null or absent is unreadable",
    "a messages field that is not an array is taken as no messages",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            return _ORIGINAL_PARSE_CONVERSATION(data)
        except ToolError as error:
            if "messages" in error.message:
                return []
            raise

    store.parse_conversation = parse


@mutant(
    "null_messages_unreadable",
    "STO-2",
    "Absent or null messages mean no messages",
    "messages: null is reported as conversation_unreadable",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        messages = _ORIGINAL_PARSE_CONVERSATION(data)
        document = json.loads(data.removeprefix(_BOM))
        if not isinstance(document.get("messages"), list):
            raise _unreadable("messages is not an array")
        return messages

    store.parse_conversation = parse


@mutant(
    "attachments_skipped",
    "STO-4",
    "Unnamed fields are ignored in a file that also holds entries that are not messages",
    "user messages that carry attachments are skipped",
)
def _() -> None:
    store.typed_messages = lambda data: None  # such a server decodes attachments: whole messages, not the fields read
    _wrap_candidate(lambda m, c: None if c is not None and "attachments" in m else c)


@mutant(
    "nan_accepted",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "the file is parsed by Python's default json.loads, which accepts NaN and Infinity",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            document = json.loads(data.removeprefix(_BOM).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        if not isinstance(document, dict):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        messages = document.get("messages")
        if messages is not None and not isinstance(messages, list):
            raise _unreadable("messages is not an array")
        return messages or []

    store.parse_conversation = parse


@mutant(
    "wtf8_accepted",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "the file is decoded with surrogatepass: UTF-8-encoded surrogates (ED A0 80) are accepted",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        raw = data.removeprefix(_BOM)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            try:
                text = raw.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError:
                return _ORIGINAL_PARSE_CONVERSATION(data)
            return _ORIGINAL_PARSE_CONVERSATION(_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode())
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse


@mutant(
    "utf8_checked_per_64k_chunk",
    "STO-1",
    "A conversation past 64 KiB with characters across read-chunk boundaries is read",
    "each 64 KiB read chunk is UTF-8-decoded on its own (a fatal TextDecoder without stream: true)",
)
def _() -> None:
    chunk = 64 * 1024

    def parse_conversation(data: bytes) -> Any:
        for start in range(0, len(data), chunk):
            try:
                data[start : start + chunk].decode("utf-8")
            except UnicodeDecodeError:
                raise ToolError("conversation_unreadable", "the conversation file is not valid UTF-8") from None
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse_conversation


@mutant(
    "bom_bytes_stripped",
    "STO-3",
    "Half a byte-order mark, or two of them, is not JSON",
    "leading bytes EF, BB and BF are stripped in any number (lstrip), so half or double marks are accepted",
)
def _() -> None:
    store.parse_conversation = lambda data: _ORIGINAL_PARSE_CONVERSATION(data.lstrip(_BOM))


@mutant(
    "bom_removed_on_read",
    "RO-1",
    "A leading UTF-8 byte-order mark is ignored",
    "a file with a byte-order mark is normalised on read: saved back without it (no read-only scenario has one)",
)
def _() -> None:
    original = store.SessionStore.read_file

    def read_file(self: store.SessionStore, conversation_id: str) -> store.StoredFile:
        read = original(self, conversation_id)
        if read.data.startswith(_BOM):
            with open(os.path.realpath(self.root / f"{conversation_id}.json"), "wb") as handle:
                handle.write(read.data[len(_BOM) :])
        return read

    store.SessionStore.read_file = read_file  # type: ignore[method-assign]


@mutant(
    "single_read",
    "STO-5",
    "A call during a non-atomic save that completes within 200 ms is never unreadable",
    "the file is read once: a read that lands in a save is answered conversation_unreadable",
    should=True,
    timing=True,
)
def _() -> None:
    store.TORN_WINDOW_S = 0.0


@mutant(
    "short_re_read_window",
    "STO-5",
    "A call during a non-atomic save that completes within 200 ms is never unreadable",
    "reads again for 15 ms only (the window of an earlier reference), less than the 200 ms D-14 asks for",
    should=True,
    timing=True,
)
def _() -> None:
    store.TORN_WINDOW_S = 0.015


@mutant(
    "fffd_as_invalid_utf8",
    "STO-1",
    "A U+FFFD stored in the file is valid UTF-8, never a sign of an unreadable file",
    "the file is decoded with replacement and any U+FFFD in the text is taken for invalid UTF-8"
    " (toString('utf8').includes('\\uFFFD')), so the whole conversation is unreadable",
)
def _() -> None:
    def parse(data: bytes) -> Any:
        if "\ufffd" in data.decode("utf-8", errors="replace"):
            raise _unreadable("the conversation file is not valid UTF-8")
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse


@mutant(
    "fffd_dropped",
    "SEL-8",
    "A stored U+FFFD counts one code point and comes back as stored",
    "U+FFFD, taken for debris of a bad decode, is removed from content before counting",
)
def _() -> None:
    def drop(message: Any, candidate: Any) -> Any:
        if candidate is None or "\ufffd" not in candidate.content:
            return candidate
        content = candidate.content.replace("\ufffd", "")
        return dataclasses.replace(candidate, content=content) if content.strip() else None

    _wrap_candidate(drop)


@mutant(
    "permission_denied_as_not_found",
    "STO-1",
    "A file the server has no permission to read is unreadable",
    "a file the server may not read (EACCES) is answered conversation_not_found, as a missing one",
    stdio=True,
)
def _() -> None:
    original = store.SessionStore.read_file

    def read_file(self: store.SessionStore, conversation_id: str) -> store.StoredFile:
        try:
            return original(self, conversation_id)
        except ToolError as error:
            if "Permission denied" in error.message:
                raise self._not_found(conversation_id) from None
            raise

    store.SessionStore.read_file = read_file  # type: ignore[method-assign]


_FOLDED = {name.lower(): name for name in ("messages", "role", "content", "id", "timestamp", "createdAt")}


def _fold_member_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Members matched without case, the last of them winning (Go's encoding/json)."""
    folded: dict[str, Any] = {}
    for name, value in pairs:
        folded[_FOLDED.get(name.lower(), name)] = value
    return folded


@mutant(
    "member_names_without_case",
    "STO-4 SEL-1",
    "Member names match exactly, so Messages, Role and Content are other members",
    "member names are matched without case (Go's encoding/json): Messages and Role are read as messages and role",
)
def _() -> None:
    def parse(data: bytes) -> Any:
        try:
            document = json.loads(data.removeprefix(_BOM).decode("utf-8"), object_pairs_hook=_fold_member_names)
        except (UnicodeDecodeError, ValueError, RecursionError):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        return _ORIGINAL_PARSE_CONVERSATION(json.dumps(document).encode())

    store.parse_conversation = parse


def _cache_settled(key_of: Callable[[os.stat_result], tuple[int, ...]]) -> None:
    """Cache messages under the ID and ``key_of`` the file's status, once the file's last change (mtime and
    ctime) is more than 2 s old: "a file that old is not being written any more, and its times can be trusted"."""
    original = store.SessionStore.read_messages
    cache: dict[tuple[Any, ...], Any] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> Any:
        try:
            info = os.stat(Path(self.root) / f"{conversation_id}.json")
        except OSError:
            return original(self, conversation_id)
        key = (f"{self.root}/{conversation_id}", *key_of(info))
        if key in cache:
            return cache[key]
        messages = original(self, conversation_id)
        if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) > 2_000_000_000:
            cache[key] = messages
        return messages

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "settled_by_size_and_mtime",
    "REG-2",
    "A conversation unchanged for seconds, then saved in place at the same size and time, is visible",
    "a file whose mtime and ctime are more than 2 s old is cached by (ID, size, mtime): a save in place that keeps "
    "its size and modification time is missed",
)
def _() -> None:
    _cache_settled(lambda info: (info.st_size, info.st_mtime_ns))


@mutant(
    "settled_trusted_forever",
    "REG-2",
    "A conversation unchanged for seconds, then saved in place at the same size and time, is visible",
    "a file whose mtime and ctime are more than 2 s old when it is read is cached by ID and never checked again",
)
def _() -> None:
    _cache_settled(lambda info: ())
