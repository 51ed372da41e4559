"""Decoding a conversation file's JSON: a typed fast path, and ``json.loads`` for everything else.

A cc-web session file is mostly assistant output and tool calls the tool never reads. The
fast path (msgspec, with a schema naming only the message fields the contract reads) skips
them without building Python objects: about a tenth of ``json.loads``'s time and memory on
a 64 MB session. It only answers when the file is a JSON object whose ``messages`` is an
array of objects or null/absent; anything else (non-object entries, lone surrogates,
``NaN``, invalid UTF-8, deep nesting, trailing bytes...) falls back to ``json.loads``, whose
verdict is the contract's (D-8). Both agree on every file the fast path accepts: the same
values for the fields read, the last of duplicate keys.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Sequence
from typing import Any, overload

import msgspec

READ_FIELDS = ("role", "content", "id", "timestamp", "createdAt")


class _Message(msgspec.Struct):
    role: Any = msgspec.UNSET
    content: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    createdAt: Any = msgspec.UNSET


class _Session(msgspec.Struct):
    messages: list[_Message] | None = None


_DECODER = msgspec.json.Decoder(_Session)
_VALIDATION_CHUNK = 1 << 20


def _is_utf8(data: bytes) -> bool:
    """True if ``data`` is valid UTF-8, checked a megabyte at a time (no full-size text copy)."""
    if data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(data), _VALIDATION_CHUNK):
            decoder.decode(view[start : start + _VALIDATION_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


class _Messages(Sequence[dict[str, Any]]):
    """Decoded messages, each turned into a dict of the fields read only when it is looked at.

    The core reads newest first and stops after ``limit`` candidates and one more, so most of
    a long conversation is never converted.
    """

    def __init__(self, messages: list[_Message]) -> None:
        self._messages = messages

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [_as_dict(m) for m in self._messages[index]]
        return _as_dict(self._messages[index])


def _as_dict(message: _Message) -> dict[str, Any]:
    return {name: value for name in READ_FIELDS if (value := getattr(message, name)) is not msgspec.UNSET}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def typed_messages(data: bytes) -> Sequence[dict[str, Any]] | None:
    """The messages with only the fields the contract reads, or None where the fast path does not apply."""
    if not _is_utf8(data):  # msgspec does not check the UTF-8 of the fields it skips
        return None
    try:
        session = _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    return _Messages(session.messages or [])


def generic_document(data: bytes) -> Any:
    """Any JSON document; raises ``ValueError``/``RecursionError``/``UnicodeDecodeError`` when it is not one."""
    return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
