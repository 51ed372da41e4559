"""The transport layer against the reference server: stdio, HTTP and in-process, all three protocol modes."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ccweb_conformance.transport.client import OMIT
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import (
    HttpCommandTarget,
    HttpUrlTarget,
    InProcessTarget,
    StdioTarget,
    Target,
    reference_command,
)

SOURCE = f"transport-{uuid.uuid4()}"
OTHER = f"transport-other-{uuid.uuid4()}"
TOOL = "ccweb_list_user_inputs"
MODES = ("auto", "legacy", "2026-07-28")
EXPECTED_ERA = {
    "auto": ("modern", "2026-07-28"),
    "legacy": ("legacy", "2025-11-25"),
    "2026-07-28": ("modern", "2026-07-28"),
}
HTTP_COMMAND = f"{sys.executable} -m ccweb_reference.cli --sessions-dir {{sessions_dir}} --http --port {{port}}"
KEYS = [f"{transport}-{mode}" for transport in ("stdio", "http", "in-process") for mode in MODES]


def ok_result(conversation_id: str, content: str) -> dict[str, object]:
    """The exact success object for a one-message conversation."""
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": 15,
        "maxChars": 1000,
        "totalChars": len(content),
        "returnedCount": 1,
        "hasMore": False,
        "items": [
            {
                "messageId": None,
                "createdAt": "2026-01-02T03:04:05.000Z",
                "content": content,
                "contentChars": len(content),
                "originalChars": len(content),
                "truncated": False,
            }
        ],
    }


def write_session(sessions_dir: Path, conversation_id: str, content: str) -> None:
    message = {"role": "user", "content": content, "timestamp": "2026-01-02T03:04:05.000Z"}
    (sessions_dir / f"{conversation_id}.json").write_text(
        json.dumps({"id": conversation_id, "messages": [message]}, indent=2), encoding="utf-8"
    )


@pytest.fixture(scope="module")
def sessions_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("sessions")
    write_session(directory, SOURCE, "make the button blue")
    write_session(directory, OTHER, "other conversation")
    return directory


@pytest.fixture(scope="module")
def targets(sessions_dir: Path) -> Iterator[dict[str, Target]]:
    """Every transport x mode, with clients for both bindings started in parallel (one run: one fork server)."""
    made: dict[str, Target] = {}
    run = RunContext()
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            http_future = pool.submit(
                HttpCommandTarget, HTTP_COMMAND, "http://127.0.0.1:{port}/mcp", sessions_dir, protocol="auto"
            )
            for mode in MODES:
                made[f"stdio-{mode}"] = StdioTarget(reference_command(), sessions_dir, protocol=mode, context=run)
                made[f"in-process-{mode}"] = InProcessTarget(sessions_dir, protocol=mode)
            pairs = [(target, source) for target in made.values() for source in (SOURCE, None)]
            try:
                warmed = list(pool.map(lambda pair: pair[0].client(pair[1]), pairs))
            finally:  # the HTTP server is closed with the others even when warming failed (it leaked)
                http = made["http-auto"] = http_future.result()
        for mode in MODES[1:]:
            made[f"http-{mode}"] = HttpUrlTarget(http.url, sessions_dir, protocol=mode)
        assert len(warmed) == len(pairs)
        yield made
    finally:
        for target in made.values():
            target.close()
        run.fork_server.stop()


def no_violations(exchange: Exchange) -> None:
    assert exchange.violations == [], exchange.violations


@pytest.mark.parametrize("key", KEYS)
def test_negotiated_era_and_version(targets: dict[str, Target], key: str) -> None:
    mode = next(mode for mode in MODES if key.endswith(mode))
    client = targets[key].client(SOURCE)
    assert (client.era, client.protocol_version) == EXPECTED_ERA[mode]
    assert client.handshake
    for exchange in client.handshake:
        no_violations(exchange)


@pytest.mark.parametrize("key", KEYS)
def test_tools_list(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).list_tools()
    no_violations(exchange)
    assert exchange.response is not None
    tools = exchange.response["result"]["tools"]
    assert [tool["name"] for tool in tools] == [TOOL]
    assert tools[0]["annotations"]["readOnlyHint"] is True
    assert exchange.request is not None and exchange.request["method"] == "tools/list"
    assert exchange.received_text and exchange.elapsed_ms > 0
    if key.startswith("http"):
        assert exchange.http_status == 200
        assert exchange.content_type is not None
    else:
        assert exchange.http_status is None


@pytest.mark.parametrize("key", KEYS)
def test_call_with_source_bound(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).call_tool(TOOL)
    no_violations(exchange)
    assert exchange.request is not None and "arguments" not in exchange.request["params"]
    assert exchange.response is not None
    result = exchange.response["result"]
    assert result["isError"] is False
    assert result["structuredContent"] == ok_result(SOURCE, "make the button blue")
    assert json.loads(result["content"][0]["text"]) == ok_result(SOURCE, "make the button blue")


@pytest.mark.parametrize("key", KEYS)
def test_call_without_binding(targets: dict[str, Target], key: str) -> None:
    client = targets[key].client(None)
    missing = client.call_tool(TOOL, {})
    no_violations(missing)
    assert missing.response is not None
    assert missing.response["result"]["isError"] is True
    assert missing.response["result"]["structuredContent"]["error"]["code"] == "missing_source_conversation"
    explicit = client.call_tool(TOOL, {"conversationId": OTHER})
    no_violations(explicit)
    assert explicit.response is not None
    assert explicit.response["result"]["structuredContent"] == ok_result(OTHER, "other conversation")


@pytest.mark.parametrize("key", KEYS)
def test_unknown_tool_is_a_protocol_error(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).call_tool("no_such_tool", {})
    no_violations(exchange)
    assert exchange.response is not None
    assert exchange.response["error"]["code"] == -32602
    assert exchange.request is not None
    assert exchange.response["id"] == exchange.request["id"]


@pytest.mark.parametrize("key", KEYS)
def test_arguments_are_sent_exactly_as_given(targets: dict[str, Target], key: str) -> None:
    client = targets[key].client(SOURCE)
    exchange = client.call_tool(TOOL, [1, 2])
    assert exchange.request is not None and exchange.request["params"]["arguments"] == [1, 2]
    assert exchange.response is not None and "error" in exchange.response
    omitted = client.call_tool(TOOL, OMIT).request
    assert omitted is not None and set(omitted["params"]) - {"_meta"} == {"name"}


@pytest.mark.parametrize("key", ["stdio-2026-07-28", "http-2026-07-28", "in-process-auto"])
def test_modern_envelope(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).list_tools()
    assert exchange.request is not None
    meta = exchange.request["params"]["_meta"]
    assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {}
    assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "ccweb-conformance"


@pytest.mark.parametrize("key", ["stdio-legacy", "http-legacy", "in-process-legacy"])
def test_legacy_envelope_is_plain(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).list_tools()
    assert exchange.request is not None
    assert "params" not in exchange.request


def test_clients_are_cached_per_source(targets: dict[str, Target]) -> None:
    target = targets["stdio-auto"]
    assert target.client(SOURCE) is target.client(SOURCE)
    assert target.client(SOURCE) is not target.client(None)


def test_stdio_source_variable_is_removed_when_unbound(sessions_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CCWEB_SESSION_ID", SOURCE)
    target = StdioTarget(reference_command(), sessions_dir, env={"EXTRA": "1"})
    assert "CCWEB_SESSION_ID" not in target.environment(None)
    assert target.environment(SOURCE)["CCWEB_SESSION_ID"] == SOURCE
    assert target.environment(None)["CC_WEB_SESSIONS_DIR"] == str(sessions_dir)
    assert target.environment(None)["EXTRA"] == "1"
    assert target.argv[-1] == str(sessions_dir)
    assert (target.transport, target.sessions_dir) == ("stdio", sessions_dir)


def test_send_text_in_process(sessions_dir: Path) -> None:
    with InProcessTarget(sessions_dir, protocol="legacy") as target:
        client = target.client(SOURCE)
        request = '{"jsonrpc":"2.0","id":"raw-1","method":"tools/list"}'
        exchange = client.send_text(request)
        assert exchange.sent_text == request and exchange.request is None
        assert exchange.response is not None and exchange.response["id"] == "raw-1"
        notification = client.send_text('{"jsonrpc":"2.0","method":"notifications/whatever"}')
        assert notification.response is None
        silent = client.send_text("not json at all", timeout=0.2)
        assert silent.response is None
        assert not client.broken
        assert client.list_tools().response is not None


@pytest.mark.parametrize("key", ["http-legacy", "http-2026-07-28"])
def test_send_text_over_http(targets: dict[str, Target], key: str) -> None:
    exchange = targets[key].client(SOURCE).send_text("not json", timeout=2.0)
    assert exchange.http_status is not None and 400 <= exchange.http_status < 500
    assert exchange.response is not None
    assert exchange.response["error"]["code"] == -32700
