"""Era negotiation returns what was settled; the client adopts it and keeps its own state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ccweb_conformance.transport.channel import NO_RESPONSE, Answerer, Channel, ChannelError, Reply, Wait
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.negotiate import Era, Negotiated, negotiate

INITIALIZED = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "fake", "version": "1"}}
TIMEOUT = "timeout"


class HttpLikeChannel(Channel):
    """Answers each request with the next scripted result (or times out); records what was sent and its headers."""

    def __init__(self, script: list[dict[str, Any] | str]) -> None:
        self.script = script
        self.sent: list[tuple[str, dict[str, str]]] = []
        self.strays: set[str] = set()

    def send(self, text: str, *, wait: Wait, headers: Mapping[str, str], timeout: float, answer: Answerer) -> Reply:
        self.sent.append((json.loads(text)["method"], dict(headers)))
        if wait is NO_RESPONSE:
            return Reply()
        result = self.script.pop(0)
        if result == TIMEOUT:
            raise ChannelError("timeout", f"no response within {timeout:g} s", Reply())
        response = {"jsonrpc": "2.0", "id": wait, "result": result}
        return Reply(response=response, texts=[json.dumps(response)])

    def close(self) -> None:
        pass


def test_the_legacy_notification_states_the_agreed_revision_and_initialize_does_not() -> None:
    channel = HttpLikeChannel([INITIALIZED])
    client = McpClient(channel, protocol="legacy")
    client.connect()
    assert channel.sent == [
        ("initialize", {}),
        ("notifications/initialized", {"MCP-Protocol-Version": "2025-06-18"}),
    ]
    assert (client.era, client.protocol_version, client.negotiated) == ("legacy", "2025-06-18", True)
    assert [(e.request or {}).get("method") for e in client.handshake] == ["initialize", "notifications/initialized"]


def test_a_probe_that_timed_out_leaves_its_late_answer_tolerated_and_the_client_sound() -> None:
    channel = HttpLikeChannel([TIMEOUT, INITIALIZED])
    client = McpClient(channel, protocol="auto")
    client.connect()
    assert [method for method, _ in channel.sent] == ["server/discover", "initialize", "notifications/initialized"]
    assert channel.strays == {"1"}
    assert client.broken is False
    assert client.handshake[0].response is None
    assert (client.era, client.protocol_version) == ("legacy", "2025-06-18")


class RecordingWire:
    """A wire that is not a client: negotiation needs nothing else of one."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []
        self.late: list[Any] = []
        self.client_info = {"name": "a wire", "version": "1"}
        self.params: list[dict[str, Any] | None] = []

    def send_request(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        self.calls.append((method, era, version))
        self.params.append(params)
        request = {"jsonrpc": "2.0", "id": len(self.calls), "method": method}
        return Exchange(request=request, response={"jsonrpc": "2.0", "id": len(self.calls), "result": INITIALIZED})

    def send_notification(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        self.calls.append((method, era, version))
        return Exchange(request={"jsonrpc": "2.0", "method": method}, response=None)

    def tolerate_late_answer(self, request_id: Any) -> None:
        self.late.append(request_id)


def test_negotiate_returns_what_was_settled_and_records_each_exchange() -> None:
    wire = RecordingWire()
    handshake: list[Exchange] = []
    assert negotiate(wire, "legacy", handshake) == Negotiated("legacy", "2025-06-18")
    assert wire.calls == [("initialize", "legacy", "2025-11-25"), ("notifications/initialized", "legacy", "2025-06-18")]
    assert [e.request for e in handshake] == [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    assert wire.late == []


def test_the_initialize_request_introduces_the_client_as_the_wire_says() -> None:
    """The client's name is the connection's (the fuzz phase's clients are "claude-code"), not a module's."""
    wire = RecordingWire()
    negotiate(wire, "legacy", [])
    assert wire.params[0] == {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "a wire", "version": "1"},
    }
