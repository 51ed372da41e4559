"""JSON-RPC over Streamable HTTP: POST, JSON or SSE replies, the legacy session header.

As the specification allows: a server request on an SSE stream is answered with a POST (as
stdio writes it back); a stream that ends before the response, after an event ID, is resumed
with GET and ``Last-Event-ID`` (2025-11-25 polling), bounded in count and by the deadline; a
session ID that changes mid-session is a protocol failure.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

from ccweb_conformance.jsontext import BeyondLimits, compact
from ccweb_conformance.transport.channel import (
    ANY_RESPONSE,
    DEFAULT_LIMIT,
    NO_RESPONSE,
    Answerer,
    Channel,
    ChannelError,
    Collector,
    MessageTooLarge,
    Reply,
    Wait,
    cut,
    parse_received,
)
from ccweb_conformance.transport.connections import OpenConnections
from ccweb_conformance.transport.sse import StreamState, iter_events, split_lines

ACCEPT = "application/json, text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"
VERSION_HEADER = "MCP-Protocol-Version"
MAX_RESUMES = 20
"""Times one request's SSE stream is resumed (GET with Last-Event-ID) before the runner gives up."""
DEFAULT_RETRY_S = 0.1
"""Seconds to wait before resuming a stream that gave no ``retry`` time."""
SEND_BACK_MIN_S = 1.0
"""Seconds a reply to a server request may take to POST, even when the request's deadline is near."""
OPENED = frozenset(
    {"connection.connect_tcp.complete", "connection.connect_unix_socket.complete", "connection.start_tls.complete"}
)
"""httpcore's trace events whose value is a connection's stream, just opened (``start_tls``: the socket TLS wraps)."""


class HttpChannel(Channel):
    """One httpx.Client; keeps the legacy session id and sends it back.

    ``connections``: the run's, where each connection's socket is adopted as it opens (through httpcore's ``trace``
    extension, on every request), so that the signal that stops the run shuts it and ends a read waiting on it.
    """

    def __init__(
        self,
        url: str,
        *,
        base_headers: Mapping[str, str],
        stderr_tail: Callable[[int], str] | None = None,
        label: str = "server",
        limit: int = DEFAULT_LIMIT,
        connections: OpenConnections | None = None,
    ) -> None:
        self.url = url
        self.label = label
        self.limit = limit
        self.session_id: str | None = None
        self.answered: set[str] = set()
        self.strays: set[str] = set()
        self._stderr_tail = stderr_tail
        self._http = httpx.Client(headers=dict(base_headers), follow_redirects=False, trust_env=False)
        self._connections = OpenConnections() if connections is None else connections
        """The run's connections, or the channel's own when it has no run (a test, a benchmark)."""
        self._traced = {"trace": self._opened}
        """The extensions of every request: the trace that adopts each connection's socket."""

    def send(
        self,
        text: str,
        *,
        wait: Wait,
        headers: Mapping[str, str],
        timeout: float,
        answer: Answerer,
    ) -> Reply:
        reply = Reply()
        all_headers = self._agreed({"Accept": ACCEPT, "Content-Type": "application/json", **headers}, None)
        deadline = time.monotonic() + timeout
        body = text.encode("utf-8", errors="surrogatepass")
        version = headers.get(VERSION_HEADER)
        collector = Collector(
            wait,
            answered=self.answered,
            reply=reply,
            answer=answer,
            send_back=lambda message: self._send_back(message, version, reply, deadline),
            strays=self.strays,
            inspect=self.inspect,
        )
        try:
            with self._http.stream(
                "POST", self.url, content=body, headers=all_headers, timeout=timeout, extensions=self._traced
            ) as response:
                reply.http_status = response.status_code
                reply.content_type = response.headers.get("content-type")
                self._session_of(response, reply, sent=SESSION_HEADER in all_headers)
                stream = self._read(response, reply, collector, deadline)
            if stream is not None:
                self._resume(stream, collector, version, deadline)
        except httpx.TimeoutException:
            raise ChannelError("timeout", f"no response within {timeout:g} s", reply) from None
        except MessageTooLarge as exc:
            raise ChannelError("too-large", f"the server sent {exc}", reply) from None
        except httpx.HTTPError as exc:
            raise ChannelError(
                "closed", f"HTTP request to {self.url} failed: {exc or type(exc).__name__}", reply
            ) from exc
        return reply

    def _session_of(self, response: httpx.Response, reply: Reply, *, sent: bool) -> None:
        """Adopt the session ID a success reply assigns; a different one later is a protocol failure."""
        given = response.headers.get(SESSION_HEADER)
        if not given or not response.is_success:
            return
        if self.session_id is None:
            self.session_id = given
        elif sent and given != self.session_id:
            raise ChannelError(
                "session",
                f"the server changed {SESSION_HEADER} from {self.session_id!r} to {given!r} within one session "
                "(a session keeps the ID the server assigned at initialization)",
                reply,
            )

    def _read(
        self, response: httpx.Response, reply: Reply, collector: Collector, deadline: float
    ) -> StreamState | None:
        """Collect what the reply carries; an SSE stream that ended early is returned for resuming."""
        status, wait = response.status_code, collector.wait
        media = (reply.content_type or "").split(";")[0].strip().lower()
        if media == "text/event-stream" and status < 300:
            stream = StreamState()
            if self._read_sse(response, reply, collector, deadline, stream) or wait in (NO_RESPONSE, ANY_RESPONSE):
                return None
            return stream
        body = self._read_body(response, reply, deadline)
        if body:
            reply.add_text(body)
        if wait is ANY_RESPONSE:
            self._take_lenient(body, media, collector)
            return None
        if wait is NO_RESPONSE:
            if not 200 <= status < 300:
                raise ChannelError("http", f"HTTP {status} for a notification: {cut(body, 300)!r}", reply)
            return None
        if media == "application/json" and self._take_json(body, status, collector):
            return None
        if status >= 400:
            raise ChannelError("http", f"HTTP {status} {response.reason_phrase}: {cut(body, 300)!r}", reply)
        if media not in ("application/json", "text/event-stream"):
            raise ChannelError(
                "http", f"HTTP {status} with Content-Type {reply.content_type!r}, not JSON or SSE", reply
            )
        raise ChannelError("http", f"HTTP {status} reply carries no response to the request", reply)

    def _resume(self, stream: StreamState, collector: Collector, version: str | None, deadline: float) -> None:
        """Resume an SSE stream that ended without the response: GET with Last-Event-ID (2025-11-25 polling).

        Only when the server sent an event ID; at most MAX_RESUMES times, waiting the stream's
        ``retry`` time (bounded by the request's deadline) before each GET.
        """
        reply = collector.reply
        for attempt in range(MAX_RESUMES + 1):
            if stream.last_id is None:
                raise ChannelError(
                    "closed", "the SSE stream ended without the response (and sent no event ID to resume from)", reply
                )
            if attempt == MAX_RESUMES:
                raise ChannelError(
                    "closed",
                    f"the SSE stream ended without the response {MAX_RESUMES + 1} times "
                    f"(resumed {MAX_RESUMES} times with Last-Event-ID, the most the runner tries)",
                    reply,
                )
            pause = DEFAULT_RETRY_S if stream.retry_ms is None else stream.retry_ms / 1000.0
            if time.monotonic() + pause >= deadline:
                raise httpx.ReadTimeout(f"the server asked to wait {pause:g} s before resuming the SSE stream")
            self._connections.pause(pause)  # cut short once the run's connections were shut (a signal)
            headers = self._agreed({"Accept": "text/event-stream", "Last-Event-ID": stream.last_id}, version)
            left = max(deadline - time.monotonic(), 0.001)
            with self._http.stream("GET", self.url, headers=headers, timeout=left, extensions=self._traced) as response:
                self._session_of(response, reply, sent=SESSION_HEADER in headers)
                media = (response.headers.get("content-type") or "").split(";")[0].strip().lower()
                if response.status_code >= 300 or media != "text/event-stream":
                    body = self._read_body(response, reply, deadline)
                    raise ChannelError(
                        "http",
                        f"resuming the SSE stream (GET with Last-Event-ID {stream.last_id!r}) got HTTP "
                        f"{response.status_code} with Content-Type {media or None!r}: {cut(body, 300)!r}",
                        reply,
                    )
                if self._read_sse(response, reply, collector, deadline, stream):
                    return

    def _opened(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace: a connection that opened has its socket adopted by the run's connections."""
        stream = info.get("return_value") if event in OPENED else None
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            self._connections.adopt(sock)

    def _agreed(self, headers: dict[str, str], version: str | None) -> dict[str, str]:
        """``headers`` with the protocol version of the request they follow up (if any) and the session ID (once
        the server assigned one)."""
        if version is not None:
            headers[VERSION_HEADER] = version
        if self.session_id is not None:
            headers[SESSION_HEADER] = self.session_id
        return headers

    def _send_back(self, message: dict[str, Any], version: str | None, reply: Reply, deadline: float) -> None:
        """POST the runner's reply to a server request received on an SSE stream (as stdio writes it back)."""
        headers = self._agreed({"Accept": ACCEPT, "Content-Type": "application/json"}, version)
        body = compact(message).encode("utf-8", errors="surrogatepass")
        left = max(deadline - time.monotonic(), SEND_BACK_MIN_S)
        try:
            answered = self._http.post(self.url, content=body, headers=headers, timeout=left, extensions=self._traced)
        except httpx.HTTPError as exc:
            reply.add_problem(f"POSTing the runner's reply to request id {message.get('id')!r} failed: {exc!r}")
            return
        if answered.status_code >= 300:
            reply.add_problem(
                f"the runner's reply to request id {message.get('id')!r} was refused with HTTP "
                f"{answered.status_code} (a JSON-RPC response POSTed to the server is accepted with 202)"
            )

    def _take_json(self, body: str, status: int, collector: Collector) -> bool:
        """True when the JSON body holds the awaited response; error replies never raise here."""
        if not body.strip():
            return False
        try:
            parsed = parse_received(body, collector.reply, "the HTTP body")
        except BeyondLimits as exc:
            raise ChannelError("garbage", f"HTTP {status} body is {exc}", collector.reply) from None
        except ValueError:
            if status < 400:
                raise ChannelError(
                    "garbage", f"HTTP {status} body is not JSON: {cut(body, 200)!r}", collector.reply
                ) from None
            return False
        messages = parsed if isinstance(parsed, list) else [parsed]
        try:
            return any([collector.take(message) for message in messages])
        except ChannelError:
            if status < 400:
                raise
            return False

    def _take_lenient(self, body: str, media: str, collector: Collector) -> None:
        if media != "application/json":
            return
        try:
            parsed = parse_received(body, collector.reply, "the HTTP body")
        except BeyondLimits as exc:
            raise ChannelError("garbage", f"the HTTP body is {exc}", collector.reply) from None
        except ValueError:
            return
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict) and collector.take(message):
                return

    def _read_sse(
        self, response: httpx.Response, reply: Reply, collector: Collector, deadline: float, stream: StreamState
    ) -> bool:
        """True when the stream carried the awaited response; ``stream`` follows its event IDs."""
        lines = split_lines(self._chunks(response, deadline), self.limit, reply.add_problem)
        for event in iter_events(lines, self.limit, stream):
            reply.add_text(event.data)
            if event.event != "message" or not event.data.strip():
                continue
            try:
                message = parse_received(event.data, reply, "an SSE event")
            except BeyondLimits as exc:
                raise ChannelError("garbage", f"an SSE event's data is {exc}", reply) from None
            except ValueError:
                raise ChannelError(
                    "garbage", f"an SSE event's data is not JSON: {cut(event.data, 200)!r}", reply
                ) from None
            if collector.take(message):
                return True
        return False

    def _chunks(self, response: httpx.Response, deadline: float) -> Iterator[bytes]:
        """The stream's bytes; the request's deadline holds across reads, partial lines included."""
        for chunk in response.iter_bytes():
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("deadline passed while reading the SSE stream")
            yield chunk

    def _read_body(self, response: httpx.Response, reply: Reply, deadline: float) -> str:
        """The whole body, up to the message limit; the deadline holds across reads."""
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > self.limit:
                raise MessageTooLarge(self.limit)
            if time.monotonic() > deadline:
                raise httpx.ReadTimeout("deadline passed while reading the body")
        return reply.decode(b"".join(chunks), "the HTTP body")

    def set_header(self, name: str, value: str) -> None:
        """Send ``name: value`` on every later request of this connection (a source header that changes, D-15)."""
        self._http.headers[name] = value

    def stderr_tail(self, lines: int = 20) -> str:
        return self._stderr_tail(lines) if self._stderr_tail is not None else ""

    def close(self) -> None:
        """DELETE the legacy session (not after a signal: the run's connections are shut), close the client."""
        if self.session_id is not None and not self._connections.shut:
            with contextlib.suppress(httpx.HTTPError):
                headers = {SESSION_HEADER: self.session_id}
                self._http.delete(self.url, headers=headers, timeout=2.0, extensions=self._traced)
        self._http.close()
