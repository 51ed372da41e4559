"""JSON-RPC over Streamable HTTP: POST, JSON or SSE replies, the legacy session header."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import httpx

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
)
from ccweb_conformance.transport.sse import iter_events, split_lines

ACCEPT = "application/json, text/event-stream"
SESSION_HEADER = "Mcp-Session-Id"


class HttpChannel(Channel):
    """One httpx.Client; keeps the legacy session id and sends it back."""

    def __init__(
        self,
        url: str,
        *,
        base_headers: Mapping[str, str],
        stderr_tail: Callable[[int], str] | None = None,
        label: str = "server",
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        self.url = url
        self.label = label
        self.limit = limit
        self.session_id: str | None = None
        self.answered: set[str] = set()
        self.strays: set[str] = set()
        self._stderr_tail = stderr_tail
        self._http = httpx.Client(headers=dict(base_headers), follow_redirects=False, trust_env=False)

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
        all_headers = {"Accept": ACCEPT, "Content-Type": "application/json", **headers}
        if self.session_id is not None:
            all_headers[SESSION_HEADER] = self.session_id
        deadline = time.monotonic() + timeout
        body = text.encode("utf-8", errors="surrogatepass")
        try:
            with self._http.stream("POST", self.url, content=body, headers=all_headers, timeout=timeout) as response:
                reply.http_status = response.status_code
                reply.content_type = response.headers.get("content-type")
                if self.session_id is None and response.headers.get(SESSION_HEADER):
                    self.session_id = response.headers[SESSION_HEADER]
                self._read(response, reply, wait, answer, deadline)
        except httpx.TimeoutException:
            raise ChannelError("timeout", f"no response within {timeout:g} s", reply) from None
        except MessageTooLarge as exc:
            raise ChannelError("too-large", f"the server sent {exc}", reply) from None
        except httpx.HTTPError as exc:
            raise ChannelError(
                "closed", f"HTTP request to {self.url} failed: {exc or type(exc).__name__}", reply
            ) from exc
        return reply

    def _read(self, response: httpx.Response, reply: Reply, wait: Wait, answer: Answerer, deadline: float) -> None:
        status = response.status_code
        media = (reply.content_type or "").split(";")[0].strip().lower()
        collector = Collector(
            wait,
            answered=self.answered,
            reply=reply,
            answer=answer,
            send_back=None,
            strays=self.strays,
            inspect=self.inspect,
        )
        if media == "text/event-stream" and status < 300:
            if self._read_sse(response, reply, collector, deadline) or wait in (NO_RESPONSE, ANY_RESPONSE):
                return
            raise ChannelError("closed", "the SSE stream ended without the response", reply)
        body = self._read_body(response, deadline)
        if body:
            reply.add_text(body)
        if wait is ANY_RESPONSE:
            self._take_lenient(body, media, collector)
            return
        if wait is NO_RESPONSE:
            if not 200 <= status < 300:
                raise ChannelError("http", f"HTTP {status} for a notification: {cut(body, 300)!r}", reply)
            return
        if media == "application/json" and self._take_json(body, status, collector):
            return
        if status >= 400:
            raise ChannelError("http", f"HTTP {status} {response.reason_phrase}: {cut(body, 300)!r}", reply)
        if media not in ("application/json", "text/event-stream"):
            raise ChannelError(
                "http", f"HTTP {status} with Content-Type {reply.content_type!r}, not JSON or SSE", reply
            )
        raise ChannelError("http", f"HTTP {status} reply carries no response to the request", reply)

    def _take_json(self, body: str, status: int, collector: Collector) -> bool:
        """True when the JSON body holds the awaited response; error replies never raise here."""
        if not body.strip():
            return False
        try:
            parsed = json.loads(body)
        except ValueError:
            if status < 400:
                raise ChannelError(
                    "garbage", f"HTTP {status} body is not JSON: {cut(body, 200)!r}", collector.reply
                ) from None
            return False
        try:
            return self._take_all(parsed, collector)
        except ChannelError:
            if status < 400:
                raise
            return False

    def _take_all(self, parsed: Any, collector: Collector) -> bool:
        messages = parsed if isinstance(parsed, list) else [parsed]
        return any([collector.take(message) for message in messages])

    def _take_lenient(self, body: str, media: str, collector: Collector) -> None:
        if media != "application/json":
            return
        try:
            parsed = json.loads(body)
        except ValueError:
            return
        for message in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(message, dict) and collector.take(message):
                return

    def _read_sse(self, response: httpx.Response, reply: Reply, collector: Collector, deadline: float) -> bool:
        for event in iter_events(split_lines(self._chunks(response, deadline), self.limit), self.limit):
            reply.add_text(event.data)
            if event.event != "message" or not event.data.strip():
                continue
            try:
                message = json.loads(event.data)
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

    def _read_body(self, response: httpx.Response, deadline: float) -> str:
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
        return b"".join(chunks).decode("utf-8", errors="replace")

    def set_header(self, name: str, value: str) -> None:
        """Send ``name: value`` on every later request of this connection (a source header that changes, D-15)."""
        self._http.headers[name] = value

    def stderr_tail(self, lines: int = 20) -> str:
        return self._stderr_tail(lines) if self._stderr_tail is not None else ""

    def close(self) -> None:
        if self.session_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                self._http.delete(self.url, headers={SESSION_HEADER: self.session_id}, timeout=2.0)
        self._http.close()
