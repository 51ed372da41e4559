"""A small Server-Sent Events parser (comments, multi-line data, event ids, retry), over the raw bytes.

Why not httpx-sse (0.4.3, re-checked for issue 23): it now splits lines at CR, LF and CRLF only
(no longer at U+2028 / U+0085), but it parses the text httpx decoded, so the runner would not see
what the server sent (ARCHITECTURE.md, "Raw wire"): bytes that are not UTF-8 become U+FFFD silently,
and a response that declares ``charset=iso-8859-1`` is decoded as Latin-1 and looks valid (an
event stream is always UTF-8; here both are a PROTO-1 problem, D-16); a leading byte-order mark
is not removed, so the first event of such a stream is lost; after an ``id`` field every further
blank line is dispatched as one more empty event; and a line has no byte limit
(``--max-message-bytes``). ``tests/runner/transport/test_sse_parser_vs_httpx_sse.py`` shows each.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from ccweb_conformance.jsontext import decode_utf8
from ccweb_conformance.transport.channel import MessageTooLarge


@dataclass
class SseEvent:
    """One dispatched event."""

    event: str
    data: str
    id: str | None


@dataclass
class StreamState:
    """What a stream told the client for reconnecting: the last event ID and the retry time."""

    last_id: str | None = None
    """The last ``id`` field seen, dispatched with an event or not (a priming event has no data)."""
    retry_ms: int | None = None
    """The last valid ``retry`` field: milliseconds to wait before reconnecting."""


_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


def split_lines(
    chunks: Iterable[bytes], limit: int | None = None, problem: Callable[[str], None] | None = None
) -> Iterator[str]:
    """Lines of an event stream's bytes, split only at CRLF, CR or LF as the standard says, decoded as UTF-8.

    ``str.splitlines`` (and so httpx's ``iter_lines``) also splits at U+0085, U+2028 and
    U+2029, which may stand unescaped inside a JSON string and must not end a line; in UTF-8
    their bytes are never CR or LF, so splitting the bytes is exact. The stream is UTF-8
    whatever the response declares (invalid bytes become U+FFFD, and ``problem`` is told, D-16).
    Linear: each chunk is scanned once, and a line's pieces are joined once. A line longer than
    ``limit`` bytes raises :class:`MessageTooLarge`, as the stdio and JSON paths count it.
    """

    def decoded(line: bytes) -> str:
        if line.isascii():
            return line.decode("ascii")
        text, bad = decode_utf8(line, "an SSE line")
        if bad is not None and problem is not None:
            problem(bad)
        return text

    pending: list[bytes] = []
    size = 0
    held_cr = False  # the last chunk ended in CR: an LF first in the next one belongs to it
    first = True
    for received in chunks:
        chunk = received[1:] if held_cr and received.startswith(b"\n") else received
        if first and chunk:  # the standard's UTF-8 decode drops one leading byte-order mark
            chunk, first = chunk.removeprefix(_BOM), False
        if not chunk:
            continue
        held_cr = chunk.endswith(b"\r")
        start = 0
        ends = _LINE_END.finditer(chunk) if b"\n" in chunk or b"\r" in chunk else ()  # `in` is far faster
        for match in ends:
            piece = chunk[start : match.start()]
            if limit is not None and size + len(piece) > limit:
                raise MessageTooLarge(limit)
            line = b"".join(pending) + piece if pending else piece
            yield decoded(line)
            pending, size = [], 0
            start = match.end()
        rest = chunk[start:]
        if rest:
            pending.append(rest)
            size += len(rest)
            if limit is not None and size > limit:
                raise MessageTooLarge(limit)
    if pending:
        yield decoded(b"".join(pending))


def iter_events(lines: Iterable[str], limit: int | None = None, state: StreamState | None = None) -> Iterator[SseEvent]:
    """Events from the stream's lines, as the HTML standard's parser dispatches them.

    An event whose data is longer than ``limit`` bytes (in UTF-8) raises :class:`MessageTooLarge`.
    ``state`` (when given) starts with the ID to carry on from and follows every ``id`` and
    ``retry`` field, so a caller can resume the stream after it ends.
    """
    state = state if state is not None else StreamState()
    event, last_id = "", state.last_id
    data: list[str] = []
    size = 0
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data), last_id)
            event, data, size = "", [], 0
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
            size += (len(value) if value.isascii() else len(value.encode("utf-8", errors="surrogatepass"))) + 1
            if limit is not None and size > limit + 1:
                raise MessageTooLarge(limit)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = state.last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            state.retry_ms = int(value)
    if data:  # a final event without its blank line still counts
        yield SseEvent(event or "message", "\n".join(data), last_id)
