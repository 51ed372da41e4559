"""HTTP as the specification allows (issue 22): server requests on SSE, SSE polling, the session ID.

Against the gate fake (tests/runner/fakes/gate_server.py), through the transport layer alone.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.transport.httpchannel import MAX_RESUMES
from ccweb_conformance.transport.targets import HttpCommandTarget

Start = Callable[..., HttpCommandTarget]
GATE = Path(__file__).resolve().parent.parent / "fakes" / "gate_server.py"


@pytest.fixture
def gate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Start]:
    """Start the gate fake over HTTP with some words; closed at the end."""
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("GATE_STATE", str(state))
    started: list[HttpCommandTarget] = []

    def start(*words: str, timeout: float = 5.0) -> HttpCommandTarget:
        command = shlex.join([sys.executable, str(GATE), "http"]) + " {port} " + shlex.join(words)
        sessions = tmp_path / "sessions"
        sessions.mkdir(exist_ok=True)
        target = HttpCommandTarget(command, "http://127.0.0.1:{port}/mcp", sessions, protocol="legacy", timeout=timeout)
        started.append(target)
        return target

    yield start
    for target in started:
        target.close()


def test_a_ping_on_the_sse_stream_is_answered_with_a_post(gate: Start) -> None:
    client = gate("sse", "sse-ping").client(None)
    exchange = client.call_tool("ccweb_list_user_inputs", {"conversationId": "none"})
    assert exchange.response is not None and exchange.request is not None
    assert exchange.response["id"] == exchange.request["id"]
    assert client.received == [{"jsonrpc": "2.0", "id": "gate-ping-1", "method": "ping"}]
    assert exchange.violations == []


def test_a_polled_stream_is_resumed_with_last_event_id(gate: Start) -> None:
    client = gate("sse", "sse-poll=3").client(None)
    exchange = client.call_tool("ccweb_list_user_inputs", {"conversationId": "none"})
    assert exchange.response is not None
    assert exchange.response["result"]["structuredContent"]["error"]["code"] == "conversation_not_found"
    assert exchange.violations == []


def test_resuming_is_bounded(gate: Start) -> None:
    client = gate("sse", f"sse-poll={MAX_RESUMES + 5}", timeout=30.0).client(None)
    with pytest.raises(ProtocolFailure) as caught:
        client.call_tool("ccweb_list_user_inputs", {})
    assert caught.value.kind == "closed"
    assert (
        f"the SSE stream ended without the response {MAX_RESUMES + 1} times "
        f"(resumed {MAX_RESUMES} times with Last-Event-ID, the most the runner tries)" in str(caught.value)
    )


def test_resuming_is_bounded_by_the_deadline(gate: Start) -> None:
    client = gate("sse", f"sse-poll={MAX_RESUMES}", timeout=0.3).client(None)
    with pytest.raises(ProtocolFailure) as caught:
        client.call_tool("ccweb_list_user_inputs", {})
    assert caught.value.kind == "timeout"
    assert "no response within 0.3 s" in str(caught.value)


def test_a_stream_without_an_event_id_is_not_resumed(gate: Start) -> None:
    client = gate("sse", "sse-cut").client(None)
    with pytest.raises(ProtocolFailure) as caught:
        client.call_tool("ccweb_list_user_inputs", {})
    assert "the SSE stream ended without the response (and sent no event ID to resume from)" in str(caught.value)


def test_a_changing_session_id_is_a_protocol_failure(gate: Start) -> None:
    client = gate("session-change").client(None)
    assert client.list_tools().response is not None
    with pytest.raises(ProtocolFailure) as caught:
        client.call_tool("ccweb_list_user_inputs", {})
    assert caught.value.kind == "session"
    assert "the server changed Mcp-Session-Id from 'gate-1' to 'gate-2' within one session" in str(caught.value)
