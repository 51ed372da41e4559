"""What every wire (stdio lines, in-process lines, HTTP) offers the client."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Final

from ccweb_conformance.jsontext import decode_utf8, read_json

TEXT_LIMIT = 20_000
"""Characters of received text kept in an exchange."""
DEFAULT_LIMIT = 16 * 1024 * 1024
"""Bytes one incoming message may have (``--max-message-bytes``)."""
OTHERS_KEPT = 50
"""Notifications and server requests kept per reply (the rest are counted, checked, dropped)."""
VIOLATIONS_KEPT = 20
"""Schema violations kept per reply (the rest are counted)."""


class MessageTooLarge(ValueError):
    """One incoming message is over the size limit; it was dropped unread."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a message larger than the limit of {limit} bytes (--max-message-bytes)")


class Marker:
    """A value that stands for itself, shown by its name."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NO_RESPONSE: Final = Marker("NO_RESPONSE")
"""Wait for nothing (a notification)."""
ANY_RESPONSE: Final = Marker("ANY_RESPONSE")
"""Take the first response whatever its id, or none (raw text)."""

Wait = Marker | int | str
"""What to wait for: a request id, NO_RESPONSE or ANY_RESPONSE."""

Answerer = Callable[[dict[str, Any]], dict[str, Any] | None]
"""Makes the reply to a server->client request (None: do not reply)."""
Inspect = Callable[[dict[str, Any]], list[str]]
"""Checks a notification or server request as it arrives: its schema violations."""


@dataclass(frozen=True)
class Heard:
    """A message that came while the runner listened with no request of its own awaited, and when."""

    at: float
    """``time.monotonic()`` when it was read."""
    message: Any


@dataclass
class Reply:
    """Everything received while waiting for one response."""

    response: dict[str, Any] | None = None
    others: list[dict[str, Any]] = field(default_factory=list)
    """Notifications and server->client requests that came first."""
    texts: list[str] = field(default_factory=list)
    """The raw text received, piece by piece (lines, HTTP body or SSE data)."""
    http_status: int | None = None
    content_type: str | None = None
    decode_problems: list[str] = field(default_factory=list)
    """Wire-level problems that are not failures (e.g. invalid UTF-8)."""
    other_violations: list[str] = field(default_factory=list)
    """Schema violations of those messages, checked as they came (the first ones)."""
    other_violations_seen: int = 0
    text_chars: int = 0
    """Characters received in all, a newline between pieces (``texts`` keeps about TEXT_LIMIT)."""
    kept_chars: int = 0

    def add_text(self, text: str) -> None:
        """Keep a piece of received text while the kept ones are under TEXT_LIMIT characters."""
        self.text_chars += len(text) + (1 if self.texts or self.text_chars else 0)
        if self.kept_chars <= TEXT_LIMIT:
            piece = text if len(text) <= TEXT_LIMIT + 1 else text[: TEXT_LIMIT + 1]
            self.kept_chars += len(piece) + (1 if self.texts else 0)
            self.texts.append(piece)

    def decode(self, raw: bytes, what: str) -> str:
        """``raw`` read as UTF-8; where it is not valid UTF-8 is noted as a problem (``what`` names the piece)."""
        text, problem = decode_utf8(raw, what)
        if problem is not None:
            self.add_problem(problem)
        return text

    def add_problem(self, problem: str) -> None:
        """Note a wire-level problem (invalid UTF-8, not strict JSON); the first VIOLATIONS_KEPT are kept."""
        if len(self.decode_problems) < VIOLATIONS_KEPT:
            self.decode_problems.append(problem)

    def add_other(self, message: dict[str, Any], inspect: Inspect | None) -> None:
        """Check a notification or server request, keep the first OTHERS_KEPT."""
        if len(self.others) < OTHERS_KEPT:
            self.others.append(message)
        if inspect is None:
            return
        found = inspect(message)
        self.other_violations_seen += len(found)
        room = max(VIOLATIONS_KEPT - len(self.other_violations), 0)
        self.other_violations.extend(found[:room])

    def received_text(self) -> str:
        """The raw text received, cut to a readable size."""
        kept = "\n".join(self.texts)
        if len(kept) <= TEXT_LIMIT and self.text_chars <= len(kept):
            return kept
        return f"{kept[:TEXT_LIMIT]}... [{max(self.text_chars, len(kept)) - TEXT_LIMIT} more characters]"


def cut(text: str, limit: int = TEXT_LIMIT, *, separator: str = "") -> str:
    """``text`` cut to ``limit`` characters, saying how much was dropped: the one truncator of the runner."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{separator}... [{len(text) - limit} more characters]"


class ChannelError(Exception):
    """The wire broke the exchange: ``kind`` is timeout, closed, garbage, wrong-id, duplicate or http."""

    def __init__(self, kind: str, detail: str, reply: Reply) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.reply = reply


class Channel(ABC):
    """Sends one piece of text and collects what comes back for it."""

    label: str = "server"
    inspect: Inspect | None = None
    """Set by the client before each request: checks each message that is not the response."""
    limit: int = DEFAULT_LIMIT
    """Bytes one incoming message may have."""
    strays: set[str]
    """Ids of raw-text requests that timed out: one late response to each is tolerated."""
    sends_headers: bool = True
    """Whether ``send`` puts its ``headers`` on the wire (HTTP); a channel that does not is given none."""

    @abstractmethod
    def send(
        self,
        text: str,
        *,
        wait: Wait,
        headers: Mapping[str, str],
        timeout: float,
        answer: Answerer,
    ) -> Reply:
        """Send ``text``; return when the awaited response arrived. Raises ChannelError."""

    def stderr_tail(self, lines: int = 20) -> str:
        """The server's last stderr lines, when this side can see them."""
        return ""

    def listen(self, seconds: float, answer: Answerer) -> list[Heard] | None:
        """Every message that comes within ``seconds``, no request awaited; None when nothing more can come: on a
        wire with no stream of the connection's own to read (HTTP: a message comes only on the stream of a request),
        or once that stream ended. Raises ChannelError."""
        del seconds, answer
        return None

    @abstractmethod
    def close(self) -> None:
        """End the conversation and free the wire."""


def parse_received(text: str, reply: Reply, what: str) -> Any:
    """One received message, read leniently; where it is not strict JSON is noted in ``reply`` (D-16).

    Raises ``ValueError`` when ``text`` is not JSON, :class:`~ccweb_conformance.jsontext.TooDeep`
    (a ValueError) when it nests too deep to be read.
    """
    received = read_json(text)
    for problem in received.problems:
        reply.add_problem(f"{what}: {problem}")
    return received.value


def id_key(value: Any) -> str:
    """A hashable, type-exact key for a JSON-RPC id (1, "1" and true differ)."""
    return json.dumps(value, sort_keys=True)


@dataclass
class Collector:
    """Sorts incoming messages until the awaited response is found."""

    wait: Wait
    _: KW_ONLY
    answered: set[str]
    reply: Reply
    answer: Answerer
    send_back: Callable[[dict[str, Any]], None] | None
    strays: set[str] = field(default_factory=set)
    inspect: Inspect | None = None

    def take(self, message: Any) -> bool:
        """Record ``message``; True when it is the awaited response. Raises ChannelError."""
        if not isinstance(message, dict):
            raise ChannelError(
                "garbage", f"received a JSON {type(message).__name__}, not a JSON-RPC object", self.reply
            )
        if "method" not in message and ("result" in message or "error" in message):
            return self._response(message)
        self.reply.add_other(message, self.inspect)
        if "method" in message and "id" in message:
            reply = self.answer(message)
            if reply is not None and self.send_back is not None:
                self.send_back(reply)
        return False

    def _response(self, message: dict[str, Any]) -> bool:
        key = id_key(message.get("id"))
        if self.wait is ANY_RESPONSE or (not isinstance(self.wait, Marker) and key == id_key(self.wait)):
            self.reply.response = message
            self.answered.add(key)
            return True
        self.reply.add_other(message, self.inspect)
        if key in self.strays:  # a late answer to raw text sent earlier
            self.strays.discard(key)
            return False
        if key in self.answered:
            raise ChannelError("duplicate", f"a second response to request id {message.get('id')!r}", self.reply)
        raise ChannelError(
            "wrong-id", f"a response with id {message.get('id')!r} while waiting for id {self.wait!r}", self.reply
        )
