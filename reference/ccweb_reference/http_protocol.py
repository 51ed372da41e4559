"""The HTTP connection protocol with the bounds of :class:`~ccweb_reference.http_limits.HttpLimits`.

uvicorn closes an idle keep-alive connection, but not one that has sent nothing since it
opened, nor one sending its request head a byte at a time; and its ``limit_concurrency``
answers 503 only once a request's head is complete. :func:`bounded_protocol` makes an
``h11`` protocol class that adds, per connection:

- an **idle timeout** from the moment it opens (uvicorn arms its keep-alive timer only after
  a response): no byte within ``idle_timeout`` seconds and it is closed;
- a **header timeout**: the request head must be complete within ``header_timeout`` seconds
  of the connection opening, or of the previous response's end;
- a **body timeout** and a **minimum body rate**: a request body must be complete within
  ``body_timeout`` seconds of its head, and, judged once a second from the head on, must have
  arrived at ``min_body_rate`` bytes a second on average (not while the server itself has paused
  reading); otherwise the request is answered ``408 Request Timeout`` and the connection closed.
  uvicorn has no bound at all there: 260 connections dripping a body held every slot;
- a **connection cap**: beyond ``max_connections`` open connections, the oldest one still
  waiting for a request head is closed to make room, else the oldest one whose body is arriving
  slower than ``min_body_rate`` (answered 408); when every connection is busy with a request,
  the new one gets a bare 503 and is closed, before any of its bytes are read. So connections
  that send slowly, whether or not they carry the token, never hold a slot a new client needs;
- a **request-head bound** for complete heads too: h11's ``max_incomplete_event_size`` only
  bounds a head still waiting for its end, so a 100 KB head sent in one write passed it. A
  parsed head longer than ``max_header_bytes`` is refused like an incomplete one, and both
  are answered ``431 Request Header Fields Too Large`` and the connection closed;
- **one framing**: a request with both ``Content-Length`` and ``Transfer-Encoding`` (request
  smuggling, RFC 9112 section 6.1) is answered ``400`` and the connection closed, so nothing
  sent behind it is read;
- **no Nagle delay**: ``TCP_NODELAY`` on every connection. asyncio sets it only on sockets
  whose protocol number is TCP, and uvicorn before 0.55 binds its listening socket with
  protocol 0, so its connections waited for the peer's delayed ACK (about 40 ms) between the
  response head and body: 44 ms a request instead of 2 ms.

What uvicorn does without this class, with either of its HTTP implementations (the reference
always passes this h11 class, so uvicorn's ``http="auto"`` choice of httptools never applies):

- **both framings**: h11 lets ``Transfer-Encoding`` win, serves the request and keeps the
  connection, so a request smuggled behind it is served too; llhttp, which httptools wraps,
  refuses such a request by default, and uvicorn answers its 400 and closes;
- **a repeated header**: both pass every header line to the application; which one counts is
  the application's choice (the source header, and the credential when a token is required:
  :class:`ccweb_reference.http.OneHeader`);
- **a slow body**: neither has a body timeout; the application waits for the body until the
  client goes, and the SDK's legacy-era transport then logs a ``ClientDisconnect`` traceback.
  Here the body is answered ``408`` and closed, with one rate-limited log line and no traceback
  (:class:`ccweb_reference.http.DropClientDisconnect`). 408, not 400: the request was well formed,
  the server stopped waiting for it (RFC 9110 section 15.5.9).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import OrderedDict
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ccweb_reference.http_limits import LOGGER, HttpLimits

REFUSED_503 = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
TIMED_OUT_408 = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def plain_reply(status: bytes, text: bytes) -> bytes:
    """A whole HTTP/1.1 response with a plain-text body, closing the connection."""
    return (
        b"HTTP/1.1 %s\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
        % (status, len(text), text)
    )


HEAD_TOO_LARGE_431 = plain_reply(b"431 Request Header Fields Too Large", b"Request header fields too large")
BOTH_FRAMINGS_400 = plain_reply(
    b"400 Bad Request", b"Bad Request: both Content-Length and Transfer-Encoding (RFC 9112, 6.1)"
)
HEAD_TOO_LARGE = 431
BODY_CHECK_S = 1.0
"""How often a request body's rate is judged (the first time this long after its head)."""


def head_bytes(request: h11.Request) -> int:
    """The size of a parsed request head as sent: request line, header lines, blank line (h11 strips
    the spaces around values, so this never counts more than was sent)."""
    line = len(request.method) + len(request.target) + len(b"  HTTP/1.1\r\n")
    return line + sum(len(name) + len(value) + 4 for name, value in request.headers.raw_items()) + 2


class BoundedConnection(h11.Connection):
    """h11's server connection, refusing a complete request head longer than ``max_head_bytes`` and a request
    framed by both ``Content-Length`` and ``Transfer-Encoding``.

    ``refused_status`` keeps the status h11 suggests for the last refused request (431 for a head over the
    bound, complete or not), for the reply; ``refused_framing`` is set when the framing was refused.
    """

    def __init__(self, max_incomplete_event_size: int, max_head_bytes: int) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size)
        self.max_head_bytes = max_head_bytes
        self.refused_status = 400
        self.refused_framing = False

    def next_event(self) -> Any:
        """The next event, or ``RemoteProtocolError`` (hint 431) for a head over the bound, (hint 400) for a
        request with both framings."""
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.refused_status = error.error_status_hint
            raise
        if isinstance(event, h11.Request) and head_bytes(event) > self.max_head_bytes:
            self.refused_status = HEAD_TOO_LARGE
            LOGGER.warning("refused request heads over %d bytes (431)", self.max_head_bytes)
            raise h11.RemoteProtocolError("request head too large", error_status_hint=HEAD_TOO_LARGE)
        if isinstance(event, h11.Request) and has_both_framings(event):
            self.refused_status = 400
            self.refused_framing = True
            LOGGER.warning("refused requests with both Content-Length and Transfer-Encoding (400)")
            raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding", error_status_hint=400)
        return event


def has_both_framings(request: h11.Request) -> bool:
    """True if the request head has a ``Content-Length`` and a ``Transfer-Encoding`` (h11 lowercases names)."""
    names = {name for name, _ in request.headers}
    return b"content-length" in names and b"transfer-encoding" in names


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the idle and header timeouts and the connection cap."""

    limits: ClassVar[HttpLimits] = HttpLimits()
    waiting: ClassVar[OrderedDict[BoundedH11Protocol, None]]
    """Open connections waiting for a request head, oldest first (one dict per server)."""
    receiving: ClassVar[OrderedDict[BoundedH11Protocol, None]]
    """Open connections receiving a request body, oldest first (one dict per server)."""

    conn: BoundedConnection
    _header_timer: asyncio.TimerHandle | None = None
    _body_timer: asyncio.TimerHandle | None = None
    _body_started = 0.0
    _body_bytes = 0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = BoundedConnection(self.limits.max_header_bytes, self.limits.max_header_bytes)

    def send_400_response(self, msg: str) -> None:
        """The reply to a request h11 or :class:`BoundedConnection` refused, then the connection closed:
        431 for a head over the bound, 400 naming both framings, else uvicorn's own 400."""
        if self.conn.refused_status == HEAD_TOO_LARGE:
            self.transport.write(HEAD_TOO_LARGE_431)
        elif self.conn.refused_framing:
            self.transport.write(BOTH_FRAMINGS_400)
        else:
            super().send_400_response(msg)
            return
        self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        set_no_delay(transport)
        super().connection_made(transport)
        if len(self.connections) > self.limits.max_connections and not self._make_room():
            LOGGER.warning("refused connections: %d are open and busy", self.limits.max_connections)
            self.connections.discard(self)
            self.transport.write(REFUSED_503)
            self.transport.close()
            return
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
        self._await_request()

    def _make_room(self) -> bool:
        """Close the oldest connection waiting for a request head, else the oldest slow body; False if none."""
        for oldest in self.waiting:
            if oldest is not self:
                LOGGER.warning("closed idle connections to admit new ones (limit %d)", self.limits.max_connections)
                oldest._drop()
                return True
        now = self.loop.time()
        for oldest in self.receiving:
            if oldest is not self and oldest._body_is_slow(now):
                LOGGER.warning(
                    "closed slow request bodies to admit new connections (limit %d)", self.limits.max_connections
                )
                oldest._drop_body()
                return True
        return False

    def _await_request(self) -> None:
        self._cancel_header_timer()
        self._header_timer = self.loop.call_later(self.limits.header_timeout, self._header_timed_out)
        self.waiting[self] = None

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        self.waiting.pop(self, None)

    def _header_timed_out(self) -> None:
        self._header_timer = None
        LOGGER.warning("closed connections without a complete request head after %g s", self.limits.header_timeout)
        self._drop()

    def _start_body(self) -> None:
        self._body_started = self.loop.time()
        self._body_bytes = 0
        self.receiving[self] = None
        self._body_timer = self.loop.call_later(min(BODY_CHECK_S, self.limits.body_timeout), self._check_body)

    def _end_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        self.receiving.pop(self, None)

    def _body_is_slow(self, now: float) -> bool:
        """True if the body has arrived slower than ``min_body_rate`` on average since its head."""
        return self._body_bytes < self.limits.min_body_rate * (now - self._body_started)

    def _check_body(self) -> None:
        """Close a body past its timeout or below the minimum rate; else look again in a second."""
        self._body_timer = None
        now = self.loop.time()
        elapsed = now - self._body_started
        if elapsed >= self.limits.body_timeout:
            LOGGER.warning("closed requests whose body was not complete after %g s (408)", self.limits.body_timeout)
            self._drop_body()
            return
        if self._body_is_slow(now) and not self.flow.read_paused:  # paused: the server is not reading
            LOGGER.warning("closed request bodies arriving slower than %g bytes/s (408)", self.limits.min_body_rate)
            self._drop_body()
            return
        delay = min(BODY_CHECK_S, self.limits.body_timeout - elapsed)
        self._body_timer = self.loop.call_later(delay, self._check_body)

    def _drop_body(self) -> None:
        """Answer 408 (unless a response has begun) and close this connection, whose body is still arriving."""
        self._end_body()
        self.connections.discard(self)
        if self.cycle is not None:
            self.cycle.disconnected = True  # the application's receive() now gets http.disconnect
            self.cycle.message_event.set()
            if not self.cycle.response_started and not self.transport.is_closing():
                self.transport.write(TIMED_OUT_408)
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self in self.receiving:
            self._body_bytes += len(data)
        super().data_received(data)

    def _drop(self) -> None:
        """Close this connection now; it has no request in progress."""
        self._cancel_header_timer()
        self._unset_keepalive_if_required()
        self.connections.discard(self)
        if not self.transport.is_closing():
            self.transport.abort()

    def handle_events(self) -> None:
        super().handle_events()
        if self._header_timer is not None and self.conn.their_state is not h11.IDLE:
            self._cancel_header_timer()  # a request head arrived
        if self.conn.their_state is h11.SEND_BODY and not self.transport.is_closing():
            if self not in self.receiving:
                self._start_body()  # a head announcing a body arrived; the body has not
        elif self in self.receiving:
            self._end_body()

    def on_response_complete(self) -> None:
        self._end_body()
        if not self.transport.is_closing():
            self._await_request()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._end_body()
        super().connection_lost(exc)


def set_no_delay(transport: asyncio.BaseTransport) -> None:
    """Send small writes at once on a TCP connection (``TCP_NODELAY``); other sockets are left alone."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # a connection already reset
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def bounded_protocol(limits: HttpLimits) -> type[BoundedH11Protocol]:
    """A protocol class for one server, with its own bounds and waiting list."""
    attributes: dict[str, Any] = {"limits": limits, "waiting": OrderedDict(), "receiving": OrderedDict()}
    return type("ServerH11Protocol", (BoundedH11Protocol,), attributes)
