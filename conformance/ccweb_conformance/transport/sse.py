"""A small Server-Sent Events parser (comments, multi-line data, event ids, retry)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass
class SseEvent:
    """One dispatched event."""

    event: str
    data: str
    id: str | None


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(chunks: Iterable[str]) -> Iterator[str]:
    """Lines of an event stream, split only at CRLF, CR or LF as the standard says.

    ``str.splitlines`` (and so httpx's ``iter_lines``) also splits at U+0085, U+2028 and
    U+2029, which may stand unescaped inside a JSON string and must not end a line.
    """
    pending = ""
    for chunk in chunks:
        pending += chunk
        held_cr = pending.endswith("\r")  # maybe the first half of a CRLF split across chunks
        parts = _LINE_END.split(pending[:-1] if held_cr else pending)
        pending = parts.pop() + ("\r" if held_cr else "")
        yield from parts
    if pending:
        parts = _LINE_END.split(pending)
        yield from parts[:-1] if parts[-1] == "" else parts


def iter_events(lines: Iterable[str]) -> Iterator[SseEvent]:
    """Events from the stream's lines, as the HTML standard's parser dispatches them."""
    event, last_id = "", None
    data: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data), last_id)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id" and "\0" not in value:
            last_id = value
    if data:  # a final event without its blank line still counts
        yield SseEvent(event or "message", "\n".join(data), last_id)
