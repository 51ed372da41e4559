"""Unit tests of the transport internals: SSE parsing, schema checks, envelopes, id matching, buffers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.transport.channel import (
    ANY_RESPONSE,
    NO_RESPONSE,
    Answerer,
    Channel,
    ChannelError,
    Collector,
    Reply,
    Wait,
    cut,
)
from ccweb_conformance.transport.client import OMIT, McpClient, _raw_expectation
from ccweb_conformance.transport.negotiate import Negotiated
from ccweb_conformance.transport.process import RingBuffer, one_line
from ccweb_conformance.transport.sse import SseEvent, iter_events
from ccweb_conformance.transport.validate import message_violations

ROOT = Path(__file__).resolve().parents[3]


class ScriptedChannel(Channel):
    """Answers each request with the next scripted result; records what was sent."""

    def __init__(self, results: list[dict[str, Any]]) -> None:
        self.results = results
        self.sent: list[tuple[str, dict[str, str], Wait]] = []
        self.strays: set[str] = set()
        self.closed = False

    def send(self, text: str, *, wait: Wait, headers: Mapping[str, str], timeout: float, answer: Answerer) -> Reply:
        self.sent.append((text, dict(headers), wait))
        if wait is NO_RESPONSE:
            return Reply()
        if not self.results:
            raise ChannelError("timeout", f"no response within {timeout:g} s", Reply())
        response = {"jsonrpc": "2.0", "id": wait, "result": self.results.pop(0)}
        return Reply(response=response, texts=[json.dumps(response)])

    def close(self) -> None:
        self.closed = True


def test_sse_events() -> None:
    lines = [": comment", "", "event: message", "id: 4", 'data: {"a":', "data: 1}", "", "retry: 10", "data: x"]
    assert list(iter_events(lines)) == [SseEvent("message", '{"a":\n1}', "4"), SseEvent("message", "x", "4")]
    assert list(iter_events(["event: ping", "data:no-space", "", ""])) == [SseEvent("ping", "no-space", None)]


def test_valid_and_invalid_messages() -> None:
    good = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}}
    assert message_violations(good, version="2025-11-25", method="tools/list") == []
    bad = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t"}]}}
    assert message_violations(bad, version="2025-11-25", method="tools/list") == [
        "tools/list result: tools.0.inputSchema: Field required"
    ]
    assert message_violations({"id": 1, "result": {}}, version="2025-11-25", method=None)
    note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "loud", "data": 1}}
    assert message_violations(note, version="2025-11-25", method=None)[0].startswith(
        "notification notifications/message"
    )
    ping = {"jsonrpc": "2.0", "id": "s", "method": "ping"}
    assert message_violations(ping, version="2025-11-25", method=None) == []
    assert message_violations(ping, version="2026-07-28", method=None) == [
        'server request "ping" is not defined for servers at 2026-07-28'
    ]


def test_collector_id_matching() -> None:
    answered: set[str] = set()
    reply = Reply()
    collector = Collector(7, answered=answered, reply=reply, answer=lambda m: None, send_back=None)
    assert not collector.take({"jsonrpc": "2.0", "method": "notifications/progress"})
    assert collector.take({"jsonrpc": "2.0", "id": 7, "result": {}})
    with pytest.raises(ChannelError, match="a second response to request id 7"):
        Collector(8, answered=answered, reply=Reply(), answer=lambda m: None, send_back=None).take(
            {"jsonrpc": "2.0", "id": 7, "result": {}}
        )
    with pytest.raises(ChannelError, match="a response with id '7' while waiting for id 7"):
        Collector(7, answered=set(), reply=Reply(), answer=lambda m: None, send_back=None).take(
            {"jsonrpc": "2.0", "id": "7", "result": {}}
        )
    anything = Collector(ANY_RESPONSE, answered=set(), reply=Reply(), answer=lambda m: None, send_back=None)
    assert anything.take({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse"}})
    with pytest.raises(ChannelError, match="JSON list"):
        anything.take([1])


def test_modern_envelope_and_headers() -> None:
    channel = ScriptedChannel([{"tools": []}, {"content": []}])
    client = McpClient(channel, protocol="2026-07-28")
    client.adopt(Negotiated("modern", "2026-07-28"))
    client.list_tools()
    client.call_tool("ccweb_list_user_inputs", "not an object")
    (_, list_headers, _), (call_text, call_headers, _) = channel.sent
    assert list_headers == {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
    assert call_headers == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "ccweb_list_user_inputs",
    }
    params = json.loads(call_text)["params"]
    assert params["arguments"] == "not an object"
    assert params["_meta"] == {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "ccweb-conformance", "version": "0.1.0"},
    }


def test_legacy_envelope_and_headers() -> None:
    channel = ScriptedChannel([{"content": []}])
    client = McpClient(channel, protocol="legacy")
    client.adopt(Negotiated("legacy", "2025-06-18"))
    exchange = client.call_tool("x", OMIT)
    text, headers, wait = channel.sent[0]
    assert json.loads(text) == {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}
    assert headers == {"MCP-Protocol-Version": "2025-06-18"}
    assert wait == 1
    assert exchange.request == json.loads(text)
    assert exchange.violations == []


class LineLikeChannel(ScriptedChannel):
    """A scripted channel that, like stdio, puts no headers on the wire."""

    sends_headers = False


MODERN_OVER_STDIO = """
import sys
from tests.runner.transport.test_transport_units import LineLikeChannel
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.negotiate import Negotiated
client = McpClient(LineLikeChannel([{"content": []}]), protocol="2026-07-28")
client.adopt(Negotiated("modern", "2026-07-28"))
client.call_tool("ccweb_list_user_inputs", {})
print(sorted(name for name in sys.modules if name == "mcp" or name.startswith("mcp.")))
"""


def test_a_channel_without_headers_is_given_only_the_base_header() -> None:
    channel = LineLikeChannel([{"content": []}])
    client = McpClient(channel, protocol="2026-07-28")
    client.adopt(Negotiated("modern", "2026-07-28"))
    client.call_tool("ccweb_list_user_inputs", {})
    text, headers, _ = channel.sent[0]
    assert headers == {"MCP-Protocol-Version": "2026-07-28"}
    assert json.loads(text)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


def test_a_modern_call_over_stdio_does_not_import_the_sdk() -> None:
    """The SDK package (0.4 s of CPU) is imported only for the headers HTTP sends (issue 20 item 7)."""
    done = subprocess.run(
        [sys.executable, "-c", MODERN_OVER_STDIO], capture_output=True, text=True, check=True, timeout=60, cwd=ROOT
    )
    assert done.stdout == "[]\n"


def test_failure_marks_the_client_broken() -> None:
    client = McpClient(ScriptedChannel([]), protocol="legacy")
    with pytest.raises(ProtocolFailure) as info:
        client.list_tools()
    assert str(info.value) == "server: tools/list: no response within 10 s"
    assert info.value.exchange is not None and info.value.exchange.response is None
    assert client.broken


def test_raw_text_timeout_is_not_a_failure() -> None:
    channel = ScriptedChannel([])
    client = McpClient(channel, protocol="legacy")
    exchange = client.send_text("garbage", timeout=0.1)
    assert exchange.response is None and exchange.sent_text == "garbage"
    assert not client.broken
    assert channel.strays == {"null"}


def test_ring_buffer_keeps_the_newest_bytes() -> None:
    buffer = RingBuffer(limit=100)
    for index in range(1000):
        buffer.write(f"line {index}\n".encode())
    assert buffer.tail(2) == "line 998\nline 999"
    assert one_line("a\n\n b \n") == "a | b"
    assert cut("x" * 30, 10) == "xxxxxxxxxx... [20 more characters]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", (None, ANY_RESPONSE)),
        ("[1, 2]", (None, ANY_RESPONSE)),
        ('{"jsonrpc": "2.0", "method": "notifications/x"}', ("notifications/x", NO_RESPONSE)),
        ('{"jsonrpc": "2.0", "id": "a", "method": "tools/list"}', ("tools/list", "a")),
        ('{"jsonrpc": "2.0", "id": null, "method": "tools/list"}', ("tools/list", ANY_RESPONSE)),
    ],
)
def test_raw_text_expectation(text: str, expected: tuple[str | None, Wait]) -> None:
    assert _raw_expectation(text) == expected
