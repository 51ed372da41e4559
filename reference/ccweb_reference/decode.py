"""Decoding a conversation file's JSON: a lazy fast path, and ``json.loads`` for everything else.

A cc-web session file is mostly assistant output and tool calls the tool never reads, and
the tool only reads the newest few user messages. The fast path (msgspec) checks the whole
file's JSON once but keeps each message as a ``msgspec.Raw`` slice of the file's bytes,
building nothing; a message is decoded, with a schema naming only the fields the contract
reads, when the core looks at it. On a 56 MB session that is about a tenth of
``json.loads``'s time and a fiftieth of its memory.

The fast path only answers when the file is valid UTF-8 and a JSON object whose
``messages`` is an array or null/absent; anything else (lone surrogates, ``NaN``, deep
nesting, trailing bytes...) falls back to ``json.loads``, whose verdict is the contract's
(D-8). Both agree on every file the fast path accepts: the same values for the fields read,
the last of duplicate keys. An entry that is not an object is passed on as None (the core
skips it unread); an object holding a number msgspec cannot hold is decoded with ``json.loads``,
which keeps an integer longer than Python converts as its text (:class:`LongInteger`, D-8).
"""

from __future__ import annotations

import codecs
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, overload

import msgspec

from ccweb_reference.core import ToolError

READ_FIELDS = ("role", "content", "id", "timestamp", "createdAt")
_T = TypeVar("_T")


class _Message(msgspec.Struct):
    role: Any = msgspec.UNSET
    content: Any = msgspec.UNSET
    id: Any = msgspec.UNSET
    timestamp: Any = msgspec.UNSET
    createdAt: Any = msgspec.UNSET


class _Session(msgspec.Struct):
    messages: list[msgspec.Raw] | None = None


_SESSION = msgspec.json.Decoder(_Session)
_MESSAGE = msgspec.json.Decoder(_Message)
PARSER_THREADS = 4
"""Files parsed at once: a large file being parsed does not hold up another client's call."""
_VALIDATION_CHUNK = 1 << 14
"""16 KiB: each piece's decoded text (up to 64 KiB) stays in the CPU cache; 1 MiB pieces are 3x slower."""


class _ParserThread:
    """Long-lived worker threads (:data:`PARSER_THREADS`) that parse files, so always at the same stack depth.

    How deeply a file may nest before it is unreadable (RecursionError) then does not depend
    on how deep the caller's stack is (in-process, stdio or HTTP): the same file gives the
    same result everywhere (REG-1). A thread started per call would do too, at 200 us a call;
    this one is started once, and again in a forked child (which inherits no threads).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def run(self, function: Callable[[bytes], _T], data: bytes) -> _T:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=PARSER_THREADS, thread_name_prefix="ccweb-json")
            executor = self._executor
        return executor.submit(function, data).result()

    def forget(self) -> None:
        """In a forked child: the parent's worker thread does not exist here."""
        self._lock = threading.Lock()
        self._executor = None


_PARSER = _ParserThread()
os.register_at_fork(after_in_child=_PARSER.forget)


def on_parser_thread(function: Callable[[bytes], _T], data: bytes) -> _T:
    """``function(data)`` on the parser thread (see :class:`_ParserThread`)."""
    return _PARSER.run(function, data)


def is_utf8(data: bytes) -> bool:
    """True if ``data`` is valid UTF-8, checked in small pieces (no full-size text copy)."""
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


def reject_constant(name: str) -> Any:
    """``parse_constant`` for ``json.loads``: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


class LongInteger:
    """An integer longer than Python converts to ``int`` (:data:`LONGEST_INTEGER` digits), kept as its text.

    RFC 8259 lets a reader limit numbers (D-8): the contract reads no number, so such a value is
    taken as the non-string it is, in linear time (a conversion would be quadratic, and refused).
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"LongInteger({len(self.text)} characters)"


LONGEST_INTEGER = sys.int_info.default_max_str_digits
"""Python's own default bound on converting digits to ``int`` (4,300), whatever the process sets."""


def parse_integer(text: str) -> int | LongInteger:
    """``parse_int`` for ``json.loads``: an ``int``, or a :class:`LongInteger` beyond :data:`LONGEST_INTEGER` digits."""
    if len(text) - text.startswith("-") > LONGEST_INTEGER:
        return LongInteger(text)
    return int(text)


def generic_document(data: bytes) -> Any:
    """Any JSON document; raises ``ValueError``/``RecursionError``/``UnicodeDecodeError`` when it is not one."""
    return json.loads(data.decode("utf-8"), parse_constant=reject_constant, parse_int=parse_integer)


def _decode_message(raw: bytes) -> Any:
    """One message as the core reads it: a dict of the fields read; None for an entry that is not an object."""
    try:
        message = _MESSAGE.decode(raw)
    except msgspec.ValidationError:  # not an object, or a number msgspec cannot hold (1e400)
        if bytes(memoryview(raw)[:1]) != b"{":
            return None  # the core skips every entry that is not an object (D-1)
        document = generic_document(bytes(raw))
        return {name: document[name] for name in READ_FIELDS if name in document}
    return {name: value for name in READ_FIELDS if (value := getattr(message, name)) is not msgspec.UNSET}


def _message(raw: msgspec.Raw) -> Any:
    try:
        return _decode_message(raw)
    except RecursionError:  # the caller's stack is deeper than the parser's was: decode at the parser's depth
        pass
    try:
        return on_parser_thread(_decode_message, bytes(raw))
    except RecursionError:  # only json.loads, for a deep object holding a number msgspec cannot hold
        raise ToolError("conversation_unreadable", "the conversation file is nested too deeply to read") from None


class _Messages(Sequence[Any]):
    """The file's messages, each decoded only when it is looked at (entries that are not objects as None).

    The core reads newest first and stops after ``limit`` candidates and one more, so most of
    a long conversation is never decoded.
    """

    def __init__(self, messages: list[msgspec.Raw]) -> None:
        self._messages = messages

    def __len__(self) -> int:
        return len(self._messages)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [_message(raw) for raw in self._messages[index]]
        return _message(self._messages[index])


def typed_messages(data: bytes) -> Sequence[Any] | None:
    """The messages, decoded lazily, or None where the fast path does not apply."""
    if not is_utf8(data):  # msgspec does not check the UTF-8 of what it skips
        return None
    try:
        messages = skim_session(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    return _Messages(messages)


_NOT_JSON = ("invalid character", "trailing characters")
"""msgspec's words for bytes that are not JSON by any reader's grammar (a control character in a string,
``NaN``, text after the document); its other errors (a lone surrogate escape, nesting, a huge number)
may be JSON that ``json.loads`` reads."""


def json_error(data: bytes) -> str | None:
    """Why ``data`` (valid UTF-8) is certainly not a JSON document, or None when ``json.loads`` must judge it."""
    try:
        _SESSION.decode(data)
    except msgspec.DecodeError as error:
        text = str(error)
        return text if any(words in text for words in _NOT_JSON) else None
    except (msgspec.ValidationError, RecursionError):
        return None
    return None


def skim_session(data: bytes) -> list[msgspec.Raw]:
    """The structure check: the ``messages`` of a session object, each as an undecoded slice of ``data``."""
    return _SESSION.decode(data).messages or []
