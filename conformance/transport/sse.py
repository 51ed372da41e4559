"""A small Server-Sent Events parser (comments, multi-line data, event ids, retry)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass
class SseEvent:
    """One dispatched event."""

    event: str
    data: str
    id: str | None


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
