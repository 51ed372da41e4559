"""The fastest reading of a conversation file: simdjson checks UTF-8 and JSON in one SIMD pass.

simdjson (pysimdjson) validates the whole file, UTF-8 included, and indexes its structure
at gigabytes a second, building no Python objects; the messages are then proxies into that
index, and a message's fields become Python values only when the core looks at it. This
replaces the two passes of :func:`ccweb_reference.decode.typed_messages` (a UTF-8 check,
then msgspec), at about a third of their time on a large session.

It answers only where its reading is exactly ``json.loads``'s (D-8); for anything else it
returns None and the msgspec path, then ``json.loads``, decide as before:

- simdjson rejects lone surrogate escapes, integers beyond 64 bits, numbers out of the
  double range, and nesting beyond 1024 levels (``json.loads`` reads the first three; the
  slower paths give their answer);
- a second byte-order mark (``json.loads`` refuses it, simdjson would skip it);
- a duplicate ``messages`` key, or a duplicate of a field the core reads in a message
  (``json.loads`` keeps the last, simdjson's lookup finds the first): that file, or that
  message, is read by msgspec, which keeps the last.

A parser keeps its buffers (about twice the largest file it has read) to parse the next
file without allocating; it is released after ``RELEASE_AFTER_S`` seconds without a parse.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, cast, overload

import simdjson

_BOM = b"\xef\xbb\xbf"
RELEASE_AFTER_S = 60.0
_REUSED = "re-use a parser"
"""pysimdjson's RuntimeError when proxies of the previous document are still alive."""


class _Parsers:
    """One reusable simdjson parser, dropped after an idle minute (and in a forked child)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parser: simdjson.Parser | None = None
        self._last_used = 0.0
        self._timer: threading.Timer | None = None

    def parse(self, data: bytes) -> Any:
        """The document's root: a proxy for an object or an array, or a Python scalar."""
        with self._lock:
            parser = self._parser if self._parser is not None else simdjson.Parser()
            try:
                root = parser.parse(data)
            except RuntimeError as exc:
                if _REUSED not in str(exc):
                    raise
                parser = simdjson.Parser()  # the old one is still in use: leave it to its proxies
                root = parser.parse(data)
            self._parser = parser
            self._last_used = time.monotonic()
            if self._timer is None:
                self._schedule(RELEASE_AFTER_S)
        return root

    def _schedule(self, delay: float) -> None:
        self._timer = threading.Timer(delay, self._release)
        self._timer.daemon = True
        self._timer.start()

    def _release(self) -> None:
        with self._lock:
            idle = time.monotonic() - self._last_used
            if idle >= RELEASE_AFTER_S:
                self._parser = None
                self._timer = None
            else:
                self._schedule(RELEASE_AFTER_S - idle)

    def forget(self) -> None:
        """In a forked child: no timer thread, and a lock nobody holds."""
        self._lock = threading.Lock()
        self._parser = None
        self._timer = None


_PARSERS = _Parsers()
os.register_at_fork(after_in_child=_PARSERS.forget)


def _python(value: Any) -> Any:
    """A field's value as ``json.loads`` gives it: proxies become dicts and lists."""
    if isinstance(value, simdjson.Object):
        return value.as_dict()
    if isinstance(value, simdjson.Array):
        return value.as_list()
    return value


class _Messages(Sequence[Any]):
    """The messages: each a dict of the fields read, made when looked at; None for a non-object."""

    def __init__(self, entries: list[Any], read_fields: tuple[str, ...], slow: Callable[[bytes], Any]) -> None:
        self._entries = entries
        self._read = frozenset(read_fields)
        self._slow = slow

    def __len__(self) -> int:
        return len(self._entries)

    def _message(self, entry: Any) -> Any:
        if not isinstance(entry, simdjson.Object):
            return None  # the core skips every entry that is not an object (D-1)
        names = [name for name in entry if name in self._read]
        if len(names) != len(set(names)):
            text = cast(bytes, entry.mini)  # bytes, though pysimdjson's stub says str
            return self._slow(text)  # a duplicate field: msgspec keeps the last, as json.loads does
        return {name: _python(entry[name]) for name in names}

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self._message(entry) for entry in self._entries[index]]
        return self._message(self._entries[index])


def simd_messages(data: bytes, read_fields: tuple[str, ...], slow: Callable[[bytes], Any]) -> Sequence[Any] | None:
    """The messages, read lazily, or None where this reading is not exactly ``json.loads``'s.

    ``slow`` reads one message's JSON text (a message with a duplicate field).
    """
    if data.startswith(_BOM):
        return None
    try:
        root = _PARSERS.parse(data)
    except (ValueError, RuntimeError):  # invalid, or beyond what simdjson holds (see the module)
        return None
    if not isinstance(root, simdjson.Object) or sum(1 for name in root if name == "messages") > 1:
        return None
    messages = root.get("messages")
    if messages is None:
        return []
    if not isinstance(messages, simdjson.Array):
        return None  # the generic reading names the problem
    return _Messages(list(messages), read_fields, slow)
