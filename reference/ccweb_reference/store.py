"""The read-only store: cleans conversation IDs and reads ``<sessions dir>/<id>.json``.

It never writes, and never reads outside the sessions directory (SRC-6, SRC-7, RO-1): every file
is opened beneath it by :func:`ccweb_reference.beneath.open_beneath`, so a folder renamed or
swapped for a link while a call resolves the path cannot lead the read outside.

cc-web saves a session with a plain ``writeFileSync`` (truncate, then write), so a read can
land in the middle of a save (D-14, STO-5). A read that does not parse, or during which the
file's identity or size changed, is tried again after a short pause (``TORN_PAUSES_S``, then
the last of them), until a read starts ``TORN_WINDOW_S`` (200 ms, what D-14 asks for) after the
first; that last read is answered as it is. The runner completes every save it holds torn within
150 ms of its start, before the call's first read can be 200 ms old, so the window needs no margin;
anything longer is only paid by every truly unreadable file.

A call's memory is bounded: a file larger than the store's ``max_file_bytes`` (default
:data:`DEFAULT_MAX_FILE_BYTES`, ``ccweb-reference --max-file-bytes``) is answered
``conversation_unreadable`` before it is read, and at most that many bytes are ever read.

So is the memory of calls at once: a call on a file of :data:`SMALL_READ_BYTES` or more holds
its size from the store's :class:`ReadBudget` (default :data:`DEFAULT_READ_BUDGET_BYTES`,
``ccweb-reference --read-budget-bytes``) while it reads, parses and answers, and waits while the
budget is spent. Twelve concurrent calls on a 127 MiB file took the process from 71 MB to
1,343 MB before: nothing bounded them.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple, overload

from ccweb_reference.beneath import Outside, open_beneath
from ccweb_reference.cache import ResultCache, StatKey, stat_key
from ccweb_reference.core import ToolError, excerpt
from ccweb_reference.decode import generic_document, is_utf8, json_error, on_parser_thread, typed_messages

_NOT_ID_CHARACTER = re.compile(r"[^A-Za-z0-9-]")
_BOM = b"\xef\xbb\xbf"
TORN_PAUSES_S = (0.001, 0.002, 0.004, 0.008, 0.016)
"""The pause before each new read; every later pause is the last one."""
TORN_WINDOW_S = 0.2
"""Reads go on until one starts this long after the first (D-14: at least 200 ms); 0: one read."""
DEFAULT_MAX_FILE_BYTES = 128 * 1024 * 1024
"""The largest conversation file read (128 MiB; cc-web's longest sessions are tens of MB)."""
DEFAULT_READ_BUDGET_BYTES = 2 * DEFAULT_MAX_FILE_BYTES
"""The bytes of conversation files read and parsed at once (256 MiB: two of the largest files)."""
SMALL_READ_BYTES = 1 << 20
"""Files smaller than this (1 MiB) are not counted: they never wait behind a large one. At most as
many as the server's worker threads (40) are read at once, so they add at most 40 MiB."""
_LEADING_SPACE = re.compile(rb"[ \t\r\n]*")


class ReadBudget:
    """The bytes of conversation files being read and parsed at once, at most ``limit``.

    A read of ``size`` bytes takes ``min(size, limit)`` (a file larger than the budget is read
    alone) and waits, on its worker thread, until that much is free.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0
        self._changed = threading.Condition()

    @contextmanager
    def hold(self, size: int) -> Iterator[None]:
        """Hold ``size`` bytes of the budget (nothing for a small file) for the ``with`` block."""
        amount = min(size, self.limit) if size >= SMALL_READ_BYTES else 0
        if amount:
            with self._changed:
                self._changed.wait_for(lambda: self.in_use + amount <= self.limit)
                self.in_use += amount
        try:
            yield
        finally:
            if amount:
                with self._changed:
                    self.in_use -= amount
                    self._changed.notify_all()


def clean_id(raw: str) -> str:
    """Delete every character outside ``[A-Za-z0-9-]`` (SRC-4)."""
    return _NOT_ID_CHARACTER.sub("", raw)


def _generic_messages(data: bytes) -> list[Any]:
    """The ``messages`` of any JSON document, by the contract's rules for unusable shapes.

    A document that does not start with ``{`` is not a JSON object (or not JSON): answered
    without decoding it, so a huge string or array is never copied into text.
    """
    start = _LEADING_SPACE.match(data)
    first = start.end() if start is not None else 0
    if data[first : first + 1] != b"{":
        raise ToolError("conversation_unreadable", "the conversation file does not hold a JSON object")
    document = generic_document(data)
    if not isinstance(document, dict):
        raise ToolError("conversation_unreadable", "the conversation file does not hold a JSON object")
    messages = document.get("messages")
    if messages is None:
        return []
    if not isinstance(messages, list):
        raise ToolError("conversation_unreadable", "the conversation's messages field is not an array")
    return messages


def _decode(data: bytes) -> Sequence[Any]:
    """The typed fast path's messages, else the generic reading (see :mod:`ccweb_reference.decode`)."""
    typed = typed_messages(data)
    if typed is not None:
        return typed
    if not is_utf8(data):  # answered here: decoding it to text would copy the whole file first
        raise ToolError("conversation_unreadable", "the conversation file is not valid UTF-8")
    error = json_error(data)
    if error is not None:  # no JSON reader would take it: answered without a text copy either
        raise ToolError("conversation_unreadable", f"the conversation file is not valid UTF-8 JSON: {error}")
    return _generic_messages(data)


def parse_conversation(data: bytes) -> Sequence[Any]:
    """The ``messages`` of a stored conversation file's bytes (STO-1 ... STO-3)."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        messages: Sequence[Any] = on_parser_thread(_decode, data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ToolError("conversation_unreadable", f"the conversation file is not valid UTF-8 JSON: {exc}") from None
    return messages


class StoredFile(NamedTuple):
    """A conversation file's bytes and the version of the file they were read from (its descriptor's fstat)."""

    data: bytes
    version: StatKey


class StoredMessages(Sequence[Any]):
    """A conversation's messages and the version of the file they were read from (a result is cached under it)."""

    def __init__(self, messages: Sequence[Any], version: StatKey) -> None:
        self.messages = messages
        self.version = version

    def __len__(self) -> int:
        return len(self.messages)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        return self.messages[index]


_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK
"""A conversation file is opened to read; ``O_NONBLOCK``: a FIFO opens at once (and is then refused)."""
_LOOK_FLAGS = getattr(os, "O_PATH", _READ_FLAGS)
"""Opened only to learn its version: Linux needs no read permission and never opens a device for it."""
_NOT_FOUND_ERRORS = frozenset({errno.ENOENT, errno.ELOOP, errno.ENAMETOOLONG, errno.ENOTDIR, errno.EISDIR, errno.ENXIO})
"""Errors that mean there is no such regular file: missing, a dangling link or a loop, a name too long,
a component that is no directory, a directory, a socket."""


class SessionStore:
    """Read-only access to one cc-web sessions directory.

    Every file is opened beneath the sessions directory (:func:`ccweb_reference.beneath.open_beneath`),
    which is opened again for each open: a directory given as a symbolic link is followed as it is
    repointed (a deploy that swaps a ``current`` link), and one open never mixes two directories.
    """

    def __init__(
        self,
        sessions_dir: Path,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        read_budget_bytes: int = DEFAULT_READ_BUDGET_BYTES,
    ) -> None:
        self.sessions_dir = os.path.abspath(sessions_dir)
        self.results = ResultCache()
        self.max_file_bytes = max_file_bytes
        self.read_budget = ReadBudget(read_budget_bytes)

    @property
    def root(self) -> Path:
        """The sessions directory's real path now (for messages and tests; reads go by descriptor)."""
        return Path(os.path.realpath(self.sessions_dir))

    def _too_large(self, size: int) -> ToolError:
        return ToolError(
            "conversation_unreadable",
            f"the conversation file is larger than this server reads ({size:,} bytes; the bound is"
            f" {self.max_file_bytes:,}, set by ccweb-reference --max-file-bytes)",
        )

    def _not_found(self, conversation_id: str) -> ToolError:
        return ToolError(
            "conversation_not_found", f"no conversation {excerpt(conversation_id)!r} in the sessions directory"
        )

    def _open(self, conversation_id: str, flags: int) -> tuple[int, os.stat_result]:
        """``<id>.json``'s descriptor and fstat, if it is a regular file reached inside the directory (SRC-6, 7)."""
        try:
            root = os.open(self.sessions_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError:  # the sessions directory is gone: so is every conversation
            raise self._not_found(conversation_id) from None
        try:
            descriptor = open_beneath(root, f"{conversation_id}.json", flags)
        except Outside:
            raise self._not_found(conversation_id) from None  # SRC-7: never read outside
        except OSError as exc:
            if exc.errno in _NOT_FOUND_ERRORS:
                raise self._not_found(conversation_id) from None
            raise ToolError(
                "conversation_unreadable", f"the conversation file cannot be read: {exc.strerror}"
            ) from None
        finally:
            os.close(root)
        try:
            info = os.fstat(descriptor)
        except OSError as exc:
            os.close(descriptor)
            raise ToolError(
                "conversation_unreadable", f"the conversation file cannot be read: {exc.strerror}"
            ) from None
        if not stat.S_ISREG(info.st_mode):
            os.close(descriptor)
            raise self._not_found(conversation_id)  # SRC-6: a directory, a FIFO or a device
        return descriptor, info

    def version(self, conversation_id: str) -> StatKey | None:
        """The current version of a conversation's regular file, or None if it has none."""
        try:
            descriptor, info = self._open(conversation_id, _LOOK_FLAGS)
        except (OSError, ToolError):
            return None
        os.close(descriptor)
        return stat_key(info)

    def read_file(self, conversation_id: str) -> StoredFile:
        """The file's bytes and the version of the descriptor they were read from."""
        descriptor, info = self._open(conversation_id, _READ_FLAGS)
        try:
            if info.st_size > self.max_file_bytes:
                raise self._too_large(info.st_size)
            with os.fdopen(descriptor, "rb", closefd=False) as handle:
                data = handle.read(self.max_file_bytes + 1)  # it may have grown since fstat
            if len(data) > self.max_file_bytes:
                raise self._too_large(len(data))
            return StoredFile(data, stat_key(os.fstat(descriptor)))
        except OSError as exc:
            raise ToolError(
                "conversation_unreadable", f"the conversation file cannot be read: {exc.strerror}"
            ) from None
        finally:
            os.close(descriptor)

    def read_bytes(self, conversation_id: str) -> bytes:
        """The file's bytes (see :meth:`read_file`)."""
        return self.read_file(conversation_id).data

    def read_messages(self, conversation_id: str) -> StoredMessages:
        """The stored messages of a cleaned conversation ID, read again while a save is seen (D-14)."""
        started = time.monotonic()
        attempt = 0
        while True:
            last = time.monotonic() - started >= TORN_WINDOW_S
            before = self.version(conversation_id)
            data, read = self.read_file(conversation_id)
            stable = before == read and read[2] == len(data) and self.version(conversation_id) == read
            if stable or last:
                try:
                    return StoredMessages(parse_conversation(data), read)
                except ToolError as error:
                    if last or error.code != "conversation_unreadable":
                        raise
            del data
            pause = TORN_PAUSES_S[min(attempt, len(TORN_PAUSES_S) - 1)] if TORN_PAUSES_S else 0.0
            time.sleep(min(pause, max(0.0, started + TORN_WINDOW_S - time.monotonic())))
            attempt += 1
