"""A request sent without waiting, and a bounded read of what comes on the connection after it (PROTO-5's steps)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.suite.steps.lifecycle_steps import _listen_past
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.httpchannel import HttpChannel
from ccweb_conformance.transport.linechannel import LineChannel
from ccweb_conformance.transport.lines import LineIO


class ScriptedIO(LineIO):
    """Lines handed out one by one, then silence (a timeout) or the end of the stream."""

    def __init__(self, lines: list[bytes], *, ends: bool = False) -> None:
        self.lines = lines
        self.ends = ends
        self.written: list[str] = []
        self.silences: list[float] = []
        """The time-out of each read that found silence: how long the client was willing to wait."""
        self.reads = 0

    def write_line(self, text: str) -> None:
        self.written.append(text)

    def read_line(self, timeout: float) -> bytes | None:
        self.reads += 1
        if self.lines:
            return self.lines.pop(0)
        if self.ends:
            return None
        self.silences.append(timeout)
        time.sleep(timeout)
        raise TimeoutError

    def exit_status(self, wait: float = 0.0) -> str | None:
        return None

    def stderr_tail(self, lines: int = 20) -> str:
        return ""

    def close(self) -> None:
        pass


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _client(io: ScriptedIO) -> McpClient:
    return McpClient(LineChannel(io, label="stdio server"), protocol="legacy")


def test_a_request_is_sent_without_waiting_and_what_comes_after_is_read_for_the_window() -> None:
    answer = {"jsonrpc": "2.0", "id": 1, "result": {}}
    ping = {"jsonrpc": "2.0", "id": "s1", "method": "ping"}
    io = ScriptedIO([_line(answer), b"\n", _line(ping)])
    client = _client(io)
    request_id, exchange = client.start_request("tools/call", {"name": "t", "arguments": {}})
    assert (request_id, exchange.response, json.loads(io.written[0])) == (
        1,
        None,
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}},
    )
    started = time.monotonic()
    heard = client.listen(0.2)
    assert heard is not None
    assert [h.message for h in heard] == [answer, ping]
    assert time.monotonic() - started >= 0.2
    assert len(io.silences) == 1 and 0 < io.silences[0] <= 0.2  # one wait for the rest of the window, no longer
    assert json.loads(io.written[1]) == {"jsonrpc": "2.0", "id": "s1", "result": {}}  # the server's ping answered
    assert client.received == [ping]  # kept, as an exchange keeps it


def test_the_end_of_the_output_ends_the_window_early_and_then_nothing_more_can_come() -> None:
    answer = {"jsonrpc": "2.0", "id": 1, "result": {}}
    io = ScriptedIO([_line(answer)], ends=True)
    client = _client(io)
    heard = client.listen(5.0)
    assert heard is not None and [h.message for h in heard] == [answer]  # what came before the end is handed back
    assert client.listen(5.0) is None
    assert (io.silences, io.reads) == ([], 3)  # the end ended each window: no read waited for the rest of it


def test_the_cancellation_window_ends_with_the_servers_output() -> None:
    """A server that ends its output in PROTO-5's window (it exited, or the run stopped it on a signal mid-run) ends
    the window: one read finds the end, instead of reading the ended stream until the per-request timeout is over."""
    io = ScriptedIO([], ends=True)
    client = _client(io)
    client.timeout = 1.0  # the old loop read the ended stream for this long: thousands of reads, not one
    assert _listen_past(client, 3, time.monotonic() + 0.2 + client.timeout, 0.2) == ([], None)
    assert (io.reads, io.silences) == (1, [])


def test_what_came_up_to_an_answer_is_told_from_what_came_after_it() -> None:
    """PROTO-5: the answer to the tools/list sent after a cancellation marks where the server had read it; the
    cancelled call's answer before it crossed the cancellation, a message after it did not."""
    crossed, probed, late = ({"jsonrpc": "2.0", "id": n, "result": {}} for n in (2, 3, 2))
    io = ScriptedIO([_line(crossed), _line(probed), _line(late)])
    heard, answer = _listen_past(_client(io), 3, time.monotonic() + 5.0, 0.0)
    assert ([h.message for h in heard], answer) == ([crossed, probed, late], 1)
    assert len(io.silences) == 1  # read until the slice's end once the answer came: nothing more


def test_two_messages_written_into_one_line_break_the_connection_and_are_named() -> None:
    torn = b'{"jsonrpc":"2.0","me{"jsonrpc":"2.0","id":1,"result":{}}thod":"notifications/message"}\n'
    client = _client(ScriptedIO([torn]))
    with pytest.raises(ProtocolFailure) as raised:
        client.listen(1.0)
    assert str(raised.value).startswith(
        "stdio server: while listening: the server wrote two messages into one line, as writes to stdout from two"
        " threads or goroutines at once do"
    )
    assert (raised.value.kind, client.broken) == ("garbage", True)


def test_a_wire_with_no_stream_of_the_connections_own_cannot_listen() -> None:
    channel = HttpChannel("http://127.0.0.1:9/mcp", base_headers={}, stderr_tail=lambda lines: "", label="http")
    try:
        assert McpClient(channel).listen(0.1) is None
    finally:
        channel.close()
