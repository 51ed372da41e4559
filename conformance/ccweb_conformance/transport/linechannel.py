"""JSON-RPC over newline-delimited text (a child's stdio, or the in-process server)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Mapping
from typing import Any

from ccweb_conformance.jsontext import BeyondLimits, compact
from ccweb_conformance.transport.channel import (
    DEFAULT_LIMIT,
    NO_RESPONSE,
    Answerer,
    Channel,
    ChannelError,
    Collector,
    Heard,
    MessageTooLarge,
    Reply,
    Wait,
    parse_received,
)
from ccweb_conformance.transport.lines import LineIO

EXIT_WAIT = 1.0
"""Seconds to wait for a process whose output ended to report its exit code."""


class LineChannel(Channel):
    """One message per line; responses matched to requests by id."""

    sends_headers = False

    def __init__(self, io: LineIO, label: str, limit: int = DEFAULT_LIMIT) -> None:
        self.io = io
        self.label = label
        self.limit = limit
        self.answered: set[str] = set()
        self.strays: set[str] = set()

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
        try:
            self.io.write_line(text)
        except OSError as exc:
            raise ChannelError("closed", f"could not write to the server: {self._ended(exc)}", reply) from exc
        if wait is NO_RESPONSE:
            return reply
        collector = Collector(
            wait,
            answered=self.answered,
            reply=reply,
            answer=answer,
            send_back=self._send_back,
            strays=self.strays,
            inspect=self.inspect,
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                raw = self.io.read_line(deadline - time.monotonic())
            except TimeoutError:
                raise ChannelError("timeout", f"no response within {timeout:g} s", reply) from None
            except MessageTooLarge as exc:
                raise ChannelError("too-large", f"the server wrote {exc}", reply) from None
            if raw is not None and len(raw) > self.limit + 1:
                raise ChannelError("too-large", f"the server wrote {MessageTooLarge(self.limit)}", reply)
            if raw is None:
                raise ChannelError("closed", f"the server closed its output before answering ({self._ended()})", reply)
            line = reply.decode(raw, "a line received")
            reply.add_text(line.rstrip("\r\n"))
            if not raw.endswith(b"\n"):
                raise ChannelError(
                    "closed", f"the server stopped in the middle of a line ({self._ended()}): {line[:200]!r}", reply
                )
            if not line.strip():
                continue
            message = self._message(line, reply)
            if collector.take(message):
                return reply

    def listen(self, seconds: float, answer: Answerer) -> list[Heard] | None:
        """Every message read within ``seconds`` (a server's request answered as in an exchange); the end of the
        server's output ends the wait early, and once nothing is left to hand back, listening gives None: nothing
        more can come. A line that is not a message raises ChannelError, as in an exchange."""
        reply = Reply()
        heard: list[Heard] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                raw = self.io.read_line(left)
            except TimeoutError:
                break
            except MessageTooLarge as exc:
                raise ChannelError("too-large", f"the server wrote {exc}", reply) from None
            if raw is None or not raw.endswith(b"\n"):  # the server closed its output: nothing more can come
                return heard or None
            line = reply.decode(raw, "a line received")
            if not line.strip():
                continue
            message = self._message(line, reply)
            heard.append(Heard(time.monotonic(), message))
            if isinstance(message, dict) and "method" in message and "id" in message:
                back = answer(message)
                if back is not None:
                    self._send_back(back)
        return heard

    def _send_back(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # a dead peer is noticed on the next read
            self.io.write_line(compact(message))

    @staticmethod
    def _message(line: str, reply: Reply) -> Any:
        """The message a received line holds; a line that is not one (or is beyond the parser's limits) raises
        ChannelError ``garbage``."""
        try:
            return parse_received(line, reply, "a line received")
        except BeyondLimits as exc:
            raise ChannelError("garbage", f"the server wrote {exc}: {line[:200]!r}", reply) from None
        except ValueError:
            raise ChannelError("garbage", not_json(line), reply) from None

    def _ended(self, exc: Exception | None = None) -> str:
        status = self.io.exit_status(EXIT_WAIT)
        if status is not None:
            return f"the server {status}"
        return str(exc) if exc is not None else "the server is still running"

    def stderr_tail(self, lines: int = 20) -> str:
        return self.io.stderr_tail(lines)

    def close(self) -> None:
        self.io.close()


def not_json(line: str) -> str:
    """Why a line is not a message: two messages written into each other (writes to stdout from two threads or
    goroutines at once, without a lock) named as such; anything else is a line that is not JSON."""
    if line.count('"jsonrpc"') > 1:
        return (
            "the server wrote two messages into one line, as writes to stdout from two threads or goroutines at once"
            f" do (write each message whole, under one lock): {line[:200]!r}"
        )
    return f"the server wrote a line that is not JSON: {line[:200]!r}"
