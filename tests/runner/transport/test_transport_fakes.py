"""The transport layer against broken fake servers (tests/runner/fakes/): the right exception, clear message."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import pytest
from runner.process_state import ended

from ccweb_conformance.errors import ProtocolFailure, TargetError
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.httpchannel import HttpChannel
from ccweb_conformance.transport.linechannel import LineChannel
from ccweb_conformance.transport.lines import ProcessLineIO
from ccweb_conformance.transport.targets import HttpCommandTarget, HttpUrlTarget, StdioTarget, free_port

FAKES = Path(__file__).resolve().parent.parent / "fakes"
PYTHON = shlex.quote(sys.executable)


def stdio_fake(mode: str, sessions_dir: Path, timeout: float = 5.0, protocol: str = "auto") -> StdioTarget:
    command = f"{PYTHON} {shlex.quote(str(FAKES / 'fake_stdio.py'))} {mode}"
    return StdioTarget(command, sessions_dir, timeout=timeout, protocol=protocol)  # type: ignore[arg-type]


def http_fake(mode: str, sessions_dir: Path, timeout: float = 5.0) -> HttpCommandTarget:
    command = f"{PYTHON} {shlex.quote(str(FAKES / 'fake_http.py'))} {mode} {{port}}"
    return HttpCommandTarget(command, "http://127.0.0.1:{port}/mcp", sessions_dir, timeout=timeout)


def pid_of(client: McpClient) -> int:
    channel = client.channel
    assert isinstance(channel, LineChannel) and isinstance(channel.io, ProcessLineIO)
    return channel.io.process.pid


def test_fake_ok_falls_back_to_legacy_in_auto(tmp_path: Path) -> None:
    with stdio_fake("ok", tmp_path) as target:
        client = target.client("s")
        assert (client.era, client.protocol_version) == ("legacy", "2025-11-25")
        probe = client.handshake[0]
        assert probe.request is not None and probe.request["method"] == "server/discover"
        assert probe.response is not None and probe.response["error"]["code"] == -32601
        assert [e.request["method"] for e in client.handshake if e.request] == [
            "server/discover",
            "initialize",
            "notifications/initialized",
        ]
        exchange = client.call_tool("echo", {})
        assert exchange.response == {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"content": [{"type": "text", "text": "ok"}], "isError": False},
        }
        assert exchange.violations == []
        pid = pid_of(client)
    assert ended(pid)


def test_probe_timeout_falls_back_to_initialize(tmp_path: Path) -> None:
    with stdio_fake("silent-discover", tmp_path, timeout=0.3) as target:
        client = target.client(None)
        assert (client.era, client.protocol_version) == ("legacy", "2025-11-25")
        assert client.handshake[0].response is None
        assert client.list_tools().violations == []


def test_counter_offer_is_accepted(tmp_path: Path) -> None:
    with stdio_fake("counter", tmp_path, protocol="legacy") as target:
        client = target.client(None)
        assert (client.era, client.protocol_version) == ("legacy", "2025-06-18")


def test_forced_modern_on_a_legacy_server_is_a_target_error(tmp_path: Path) -> None:
    with stdio_fake("ok", tmp_path, protocol="2026-07-28") as target, pytest.raises(TargetError) as info:
        target.client(None)
    assert "server/discover at 2026-07-28 failed" in str(info.value)
    assert "-32601" in str(info.value)


def test_exit_at_start_up(tmp_path: Path) -> None:
    with stdio_fake("exit", tmp_path) as target:
        with pytest.raises(TargetError) as info:
            target.client(None)
        message = str(info.value)
        assert "exited with code 3 at start-up" in message
        assert "fatal: cannot open the configuration" in message
        assert "\n" not in message


def test_command_not_found(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="command not found or not executable: 'no-such-mcp-server-xyz'"):
        StdioTarget("no-such-mcp-server-xyz --flag", tmp_path)
    with pytest.raises(TargetError, match="cannot parse command"):
        StdioTarget("python 'unclosed", tmp_path)


def test_crash_mid_response(tmp_path: Path) -> None:
    with stdio_fake("crash", tmp_path) as target:
        client = target.client(None)
        with pytest.raises(ProtocolFailure) as info:
            client.call_tool("echo", {})
        message = str(info.value)
        assert "stopped in the middle of a line (the server exited with code 7)" in message
        assert "crashing in the middle of a response" in message
        assert info.value.exchange is not None
        assert info.value.exchange.received_text == '{"jsonrpc": "2.0", "id": '
        assert info.value.exchange.request is not None
        assert client.broken
        fresh = target.client(None)
        assert fresh is not client and pid_of(fresh) != pid_of(client)
        pids = [pid_of(client), pid_of(fresh)]
    assert all(ended(pid) for pid in pids)


def test_hang_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with stdio_fake("hang", tmp_path, timeout=0.5) as target:
        client = target.client(None)
        channel = client.channel
        assert isinstance(channel, LineChannel)
        asked: list[float] = []
        read_line = channel.io.read_line

        def recorded(timeout: float) -> bytes | None:
            asked.append(timeout)
            return read_line(timeout)

        monkeypatch.setattr(channel.io, "read_line", recorded)
        started = time.monotonic()
        with pytest.raises(ProtocolFailure) as info:
            client.call_tool("echo", {})
        assert time.monotonic() - started > 0.4  # not instant: it waited for the timeout
        # bounded by the timeout, not by how fast the machine is: each read is given what is left of the 0.5 s
        assert asked and asked == sorted(asked, reverse=True) and asked[0] <= 0.5
        assert "tools/call: no response within 0.5 s" in str(info.value)
        assert "hanging now" in str(info.value)
        assert client.broken
        pid = pid_of(client)
    assert ended(pid)


def test_close_kills_the_whole_process_group(tmp_path: Path) -> None:
    with stdio_fake("spawn", tmp_path, timeout=0.2) as target:
        client = target.client(None)
        deadline = time.monotonic() + 5
        while "child" not in client.channel.stderr_tail() and time.monotonic() < deadline:
            time.sleep(0.01)
        child = int(client.channel.stderr_tail().split("child ", 1)[1].split()[0])
        assert not ended(child)
        leader = pid_of(client)
    assert ended(leader)
    deadline = time.monotonic() + 3
    while not ended(child) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert ended(child)


def test_non_json_line(tmp_path: Path) -> None:
    with stdio_fake("garbage", tmp_path) as target:
        client = target.client(None)
        with pytest.raises(ProtocolFailure, match="the server wrote a line that is not JSON: 'this is not JSON"):
            client.call_tool("echo", {})


def test_wrong_id(tmp_path: Path) -> None:
    with stdio_fake("wrong-id", tmp_path) as target:
        with pytest.raises(ProtocolFailure) as info:
            target.client(None).call_tool("echo", {})
        assert "a response with id 103 while waiting for id 3" in str(info.value)
        assert info.value.exchange is not None and info.value.exchange.response is None


def test_second_response_to_the_same_id(tmp_path: Path) -> None:
    with stdio_fake("twice", tmp_path) as target:
        client = target.client(None)
        first = client.call_tool("echo", {})
        assert first.response is not None and first.response["result"]["content"][0]["text"] == "first"
        with pytest.raises(ProtocolFailure, match="a second response to request id 3"):
            client.list_tools()


def test_stderr_flood_does_not_block(tmp_path: Path) -> None:
    with stdio_fake("flood", tmp_path) as target:
        client = target.client(None)
        exchange = client.call_tool("echo", {})
        assert exchange.response is not None
        assert exchange.response["result"]["content"][0]["text"] == "after the flood"
        # stderr is drained by its own thread: its last line may land just after the reply.
        deadline = time.monotonic() + 10.0
        while client.channel.stderr_tail(1) != "flood done" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert client.channel.stderr_tail(1) == "flood done"


def test_server_ping_and_notification_are_recorded_and_answered(tmp_path: Path) -> None:
    with stdio_fake("ping", tmp_path) as target:
        client = target.client(None)
        exchange = client.call_tool("echo", {})
        assert exchange.response is not None
        answer = exchange.response["result"]["content"][0]["text"]
        assert answer == '{"id": "s1", "jsonrpc": "2.0", "result": {}}'
        assert [m["method"] for m in client.received] == ["notifications/message", "ping"]
        assert exchange.violations == []
        assert exchange.received_text.count("\n") == 2


def test_http_command_exits_at_start_up(tmp_path: Path) -> None:
    with pytest.raises(TargetError) as info:
        http_fake("exit", tmp_path)
    assert "exited with code 4 at start-up" in str(info.value)
    assert "fatal: port already taken" in str(info.value)


def test_url_nobody_listens_on(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    with pytest.raises(TargetError) as info:
        HttpUrlTarget(url, tmp_path)
    assert str(info.value).startswith(f"HTTP server at {url} does not answer: ConnectError")


def test_http_fake_legacy_session(tmp_path: Path) -> None:
    with http_fake("ok", tmp_path) as target:
        client = target.client("src-1")
        assert (client.era, client.protocol_version) == ("legacy", "2025-11-25")
        assert client.handshake[0].http_status == 400
        channel = client.channel
        assert isinstance(channel, HttpChannel) and channel.session_id == "fake-session-1"
        exchange = client.call_tool("echo", {})
        assert exchange.response is not None
        text = exchange.response["result"]["content"][0]["text"]
        assert text == '{"source": "src-1", "version": "2025-11-25"}'
        unbound = target.client(None).call_tool("echo", {})
        assert unbound.response is not None
        assert unbound.response["result"]["content"][0]["text"] == '{"source": null, "version": "2025-11-25"}'
        process = target.process
    assert (tmp_path / "deleted-fake-session-1").exists()
    assert ended(process.pid)


def test_http_500(tmp_path: Path) -> None:
    with http_fake("500", tmp_path) as target:
        client = target.client(None)
        with pytest.raises(ProtocolFailure) as info:
            client.call_tool("echo", {})
        assert "HTTP 500 Internal Server Error: 'internal trouble'" in str(info.value)
        assert info.value.exchange is not None and info.value.exchange.http_status == 500
        assert client.broken


def test_http_wrong_content_type(tmp_path: Path) -> None:
    with http_fake("ctype", tmp_path) as target:
        client = target.client(None)
        with pytest.raises(ProtocolFailure, match="HTTP 200 with Content-Type 'text/html', not JSON or SSE"):
            client.call_tool("echo", {})


def test_http_sse_with_comments_and_several_events(tmp_path: Path) -> None:
    with http_fake("sse", tmp_path) as target:
        client = target.client("abc")
        exchange = client.call_tool("echo", {})
        assert exchange.content_type == "text/event-stream"
        assert exchange.response is not None
        assert exchange.response["id"] == 3
        assert exchange.response["result"]["content"][0]["text"] == '{"source": "abc", "version": "2025-11-25"}'
        assert [m["method"] for m in client.received] == ["notifications/message"]
        assert exchange.violations == []
