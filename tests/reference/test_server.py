"""The reference server end to end: stdio and Streamable HTTP, each in both MCP eras.

Most checks use the small raw clients below (stdio lines; HTTP POST with JSON or SSE
replies) because they need the raw JSON text: the exact tool object and the escaped lone
surrogate, which the SDK's client hides. One test also drives the official SDK client.
All server processes start once per module; every tool call is checked to leave the
sessions directory byte-for-byte and timestamp-for-timestamp unchanged (D-12).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client.client import Client as McpClient

import ccweb_spec

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
TOOL = "ccweb_list_user_inputs"
SOURCE = "conv-a"
TIMEOUT = 10.0
StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]  # the conftest fixture


def modern_meta() -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}


def initialize_params() -> dict[str, Any]:
    return {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "kit-tests", "version": "0"}}


class StdioClient:
    """JSON-RPC over a reference process's stdin/stdout, one message per line."""

    def __init__(self, process: subprocess.Popen[bytes], era: str) -> None:
        self.process, self.era, self.next_id = process, era, 0
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        if era == LEGACY:
            assert self.request("initialize", initialize_params())[0]["result"]["protocolVersion"] == LEGACY
            self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """The response to one request, parsed and as the raw text."""
        self.next_id += 1
        if self.era == MODERN and method != "initialize":
            params = {**params, "_meta": modern_meta()}
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode())
        while True:
            raw = self.lines.get(timeout=TIMEOUT).decode("utf-8")
            message = json.loads(raw)
            if message.get("id") == self.next_id:
                return message, raw


class HttpClient:
    """JSON-RPC over Streamable HTTP: legacy with a session, modern with per-request headers."""

    def __init__(self, url: str, era: str, source: str | None) -> None:
        self.url, self.era, self.source, self.next_id = url, era, source, 0
        self.http = httpx.Client(timeout=TIMEOUT)
        self.session_id: str | None = None
        self.last_status = 0
        if era == LEGACY:
            message, _ = self.request("initialize", initialize_params())
            assert message["result"]["protocolVersion"] == LEGACY
            reply = self.http.post(
                url,
                headers=self.headers("notifications/initialized", {}),
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            )
            assert reply.status_code == 202

    def headers(self, method: str, params: dict[str, Any]) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if self.source is not None:
            headers["X-CCWeb-Session-Id"] = self.source
        if self.era == MODERN:
            headers |= {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
            if "name" in params:
                headers["Mcp-Name"] = params["name"]
        elif method != "initialize":
            assert self.session_id is not None
            headers |= {"MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": self.session_id}
        return headers

    def request(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any], str]:
        self.next_id += 1
        if self.era == MODERN:
            params = {**params, "_meta": modern_meta()}
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        reply = self.http.post(self.url, headers=self.headers(method, params), json=body)
        self.last_status = reply.status_code
        assert reply.status_code == 200 or "error" in reply.json(), reply.text
        if method == "initialize":
            self.session_id = reply.headers["mcp-session-id"]
        if reply.headers["content-type"].startswith("application/json"):
            raws = [reply.text]
        else:
            assert reply.headers["content-type"].startswith("text/event-stream")
            raws = [line[5:].strip() for line in reply.text.splitlines() if line.startswith("data:")]
        for raw in raws:
            if raw and json.loads(raw).get("id") == self.next_id:
                return json.loads(raw), raw
        raise AssertionError(f"no response with id {self.next_id} in {reply.text!r}")


Client = StdioClient | HttpClient


# --- the sessions directory -------------------------------------------------------------

SURROGATE_FILE = b'{"id": "surr", "messages": [{"role": "user", "content": "x\\ud800y", "timestamp": "t"}]}'


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions")
    conv_a = {
        "id": SOURCE, "title": "Dark mode", "created": "2026-11-30T09:12:00.000Z",
        "updated": "2026-11-30T09:15:41.208Z", "agent": "claude", "hasUnread": True,
        "messages": [
            {"role": "user", "content": "Add dark mode", "timestamp": "2026-11-30T09:12:03.512Z"},
            {"role": "assistant", "content": "Which theme?", "timestamp": "2026-11-30T09:12:30.004Z", "toolCalls": []},
            {"role": "user", "content": "Theme: system", "timestamp": "2026-11-30T09:15:40.001Z"},
            {"role": "user", "content": " \u3000 ", "timestamp": None},
        ],
    }  # fmt: skip
    conv_b = {
        "id": "conv-b",
        "messages": [
            {"role": "user", "content": "默认读取当前会话", "id": "m-1", "createdAt": "2026-01-01T00:00:00Z"},
            {"role": "user", "content": "a\U0001f600b", "timestamp": None},
        ],
    }
    (root / "conv-a.json").write_text(json.dumps(conv_a, indent=2), encoding="utf-8")
    (root / "conv-b.json").write_text(json.dumps(conv_b, indent=2, ensure_ascii=False), encoding="utf-8")
    (root / "surr.json").write_bytes(SURROGATE_FILE)
    (root / "broken.json").write_bytes(b'{"messages": [')
    (root / "dir.json").mkdir()
    (root / "conv-a-run").mkdir()
    (root / "conv-a-run" / "state").write_text("running", encoding="utf-8")
    return root


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int, int, int]]:
    """Bytes, size, mtime and ctime (ns) of everything in the sessions directory."""
    entries = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        data = path.read_bytes() if path.is_file() else None
        entries[str(path.relative_to(root))] = (data, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return entries


# --- clients: stdio and HTTP, each era ------------------------------------------------


@pytest.fixture(scope="module")
def servers(start_server: StartServer, sessions: Path) -> dict[str, Any]:
    """Every server of this module (stdio clients by era and source, the HTTP URL); they boot in parallel."""
    processes = {
        (era, source): start_server(sessions, source=source)[0] for era in (LEGACY, MODERN) for source in (SOURCE, None)
    }
    _, url = start_server(sessions, http=True)
    stdio = {key: StdioClient(process, key[0]) for key, process in processes.items()}
    return {"stdio": stdio, "http": url}


@pytest.fixture(scope="module")
def http_url(servers: dict[str, Any]) -> str:
    url: str = servers["http"]
    return url


@pytest.fixture(scope="module", params=["stdio-legacy", "stdio-2026", "http-legacy", "http-2026"])
def client(request: pytest.FixtureRequest, servers: dict[str, Any]) -> Client:
    transport, era = request.param.split("-")
    era = LEGACY if era == "legacy" else MODERN
    if transport == "stdio":
        stdio: StdioClient = servers["stdio"][era, SOURCE]
        return stdio
    return HttpClient(servers["http"], era, SOURCE)


def call(client: Client, sessions: Path, arguments: dict[str, Any], name: str = TOOL) -> dict[str, Any]:
    """tools/call; checks that nothing in the sessions directory changed; the JSON-RPC response."""
    before = snapshot(sessions)
    message, _ = client.request("tools/call", {"name": name, "arguments": arguments})
    assert snapshot(sessions) == before
    return message


def tool_result(message: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The result object (structuredContent, equal to the text block) and isError."""
    result = message["result"]
    structured = result["structuredContent"]
    texts = [block for block in result["content"] if block["type"] == "text"]
    assert len(result["content"]) == len(texts) == 1
    assert json.loads(texts[0]["text"]) == structured
    return structured, result.get("isError", False)


# --- expected objects, computed by hand ----------------------------------------------


def item(content: str, chars: int, created_at: str | None = None, message_id: str | None = None,
         original: int | None = None) -> dict[str, Any]:  # fmt: skip
    return {
        "messageId": message_id, "createdAt": created_at, "content": content, "contentChars": chars,
        "originalChars": chars if original is None else original, "truncated": original is not None,
    }  # fmt: skip


CONV_A_DEFAULT = {
    "ok": True, "conversationId": SOURCE, "requestedLimit": 15, "maxChars": 1000, "totalChars": 26,
    "returnedCount": 2, "hasMore": False,
    "items": [
        item("Add dark mode", 13, "2026-11-30T09:12:03.512Z"),
        item("Theme: system", 13, "2026-11-30T09:15:40.001Z"),
    ],
}  # fmt: skip
CONV_B_BUDGET_5 = {
    "ok": True, "conversationId": "conv-b", "requestedLimit": 15, "maxChars": 5, "totalChars": 5,
    "returnedCount": 2, "hasMore": True,
    "items": [item("默认", 2, "2026-01-01T00:00:00Z", "m-1", original=8), item("a\U0001f600b", 3)],
}  # fmt: skip
CONV_B_LIMIT_1 = {
    "ok": True, "conversationId": "conv-b", "requestedLimit": 1, "maxChars": 1000, "totalChars": 3,
    "returnedCount": 1, "hasMore": True, "items": [item("a\U0001f600b", 3)],
}  # fmt: skip
SURROGATE = {
    "ok": True, "conversationId": "surr", "requestedLimit": 15, "maxChars": 1000, "totalChars": 3,
    "returnedCount": 1, "hasMore": False, "items": [item("x\ud800y", 3, "t")],
}  # fmt: skip


def err(code: str, field: str | None = None) -> dict[str, Any]:
    return {"ok": False, "error": {"code": code} | ({"field": field} if field else {})}


CALLS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({}, CONV_A_DEFAULT),
    ({"limit": 15.0}, CONV_A_DEFAULT),
    ({"conversationId": "conv-b", "maxChars": 5}, CONV_B_BUDGET_5),
    ({"conversationId": "../conv-b!", "limit": 1}, CONV_B_LIMIT_1),
    ({"conversationId": "surr"}, SURROGATE),
    ({"limit": "15"}, err("invalid_arguments", "limit")),
    ({"limit": 51}, err("invalid_arguments", "limit")),
    ({"maxChars": 0}, err("invalid_arguments", "maxChars")),
    ({"maxChars": 10.5}, err("invalid_arguments", "maxChars")),
    ({"limit": None}, err("invalid_arguments", "limit")),
    ({"conversationId": 7}, err("invalid_arguments", "conversationId")),
    ({"query": "tests"}, err("invalid_arguments", "query")),
    ({"conversationId": "../!!"}, err("invalid_conversation_id")),
    ({"conversationId": "nope"}, err("conversation_not_found")),
    ({"conversationId": "dir"}, err("conversation_not_found")),
    ({"conversationId": "broken"}, err("conversation_unreadable")),
]


def test_tools_list_is_exactly_the_spec_tool(client: Client) -> None:
    message, _ = client.request("tools/list", {})
    assert message["result"]["tools"] == [ccweb_spec.tool_definition()]


@pytest.mark.parametrize(("arguments", "expected"), CALLS, ids=[json.dumps(a, ensure_ascii=True) for a, _ in CALLS])
def test_call(client: Client, sessions: Path, arguments: dict[str, Any], expected: dict[str, Any]) -> None:
    result, is_error = tool_result(call(client, sessions, arguments))
    assert is_error is (expected["ok"] is False)
    assert ccweb_spec.validator("output").is_valid(result)
    if is_error:
        message = result["error"].pop("message")
        assert isinstance(message, str)
        assert message
    assert result == expected


def test_lone_surrogate_is_escaped_on_the_wire(client: Client, sessions: Path) -> None:
    message, raw = client.request("tools/call", {"name": TOOL, "arguments": {"conversationId": "surr"}})
    assert tool_result(message) == (SURROGATE, False)
    assert raw.count("x\\ud800y") == 1  # structuredContent
    assert raw.count("x\\\\ud800y") == 1  # inside the text block's JSON text
    raw.encode("utf-8")  # the wire text itself holds no lone surrogate


def test_unknown_tool_is_a_protocol_error_and_serving_goes_on(client: Client, sessions: Path) -> None:
    message = call(client, sessions, {}, name="no_such_tool")
    assert "result" not in message
    assert message["error"]["code"] == -32602
    if isinstance(client, HttpClient):  # the 2026-07-28 HTTP transport maps the error to its HTTP status
        assert client.last_status == (400 if client.era == MODERN else 200)
    assert tool_result(call(client, sessions, {})) == (CONV_A_DEFAULT, False)


def test_serving_goes_on_after_each_error(client: Client, sessions: Path) -> None:
    for arguments, expected in CALLS:
        if expected["ok"] is False:
            assert tool_result(call(client, sessions, arguments))[1] is True
            assert tool_result(call(client, sessions, {"conversationId": "surr"})) == (SURROGATE, False)


def test_same_call_same_result(client: Client, sessions: Path) -> None:
    first = call(client, sessions, {"conversationId": "conv-b", "maxChars": 5})
    second = call(client, sessions, {"conversationId": "conv-b", "maxChars": 5})
    assert tool_result(first) == tool_result(second) == (CONV_B_BUDGET_5, False)


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_stdio_answers_requests_holding_lone_surrogates(servers: dict[str, Any], sessions: Path, era: str) -> None:
    """A "\\ud800" escape in a request is valid JSON; the request is answered, not dropped."""
    client: StdioClient = servers["stdio"][era, SOURCE]
    assert tool_result(call(client, sessions, {"conversationId": "\ud800conv-b", "limit": 1})) == (
        CONV_B_LIMIT_1,
        False,
    )
    message, raw = client.request("tools/call", {"name": TOOL, "arguments": {"\ud800": 1}})
    result, is_error = tool_result(message)
    assert is_error is True
    assert result["error"].pop("message")
    assert result == err("invalid_arguments", "\ud800")
    assert '"field":"\\ud800"' in raw


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize("source", [None, "", "../!!"])
def test_http_missing_source(http_url: str, sessions: Path, era: str, source: str | None) -> None:
    client = HttpClient(http_url, era, source)
    result, is_error = tool_result(call(client, sessions, {}))
    assert is_error is True
    assert result["error"].pop("message")
    assert result == err("missing_source_conversation")
    explicit = tool_result(call(client, sessions, {"conversationId": "surr"}))
    assert explicit == (SURROGATE, False)


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_stdio_missing_source_and_malformed_lines(servers: dict[str, Any], sessions: Path, era: str) -> None:
    client: StdioClient = servers["stdio"][era, None]
    process = client.process
    result, is_error = tool_result(call(client, sessions, {}))
    assert is_error is True
    assert result["error"].pop("message")
    assert result == err("missing_source_conversation")
    client.send_line(b"this is not json")
    client.send_line(b'{"jsonrpc": "2.0", "id": "x", "method": 5}')
    assert tool_result(call(client, sessions, {"conversationId": "conv-b", "limit": 1})) == (CONV_B_LIMIT_1, False)
    assert process.poll() is None


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_http_source_header_is_per_request(http_url: str, sessions: Path, era: str) -> None:
    client = HttpClient(http_url, era, "surr")
    assert tool_result(call(client, sessions, {})) == (SURROGATE, False)
    client.source = SOURCE
    assert tool_result(call(client, sessions, {})) == (CONV_A_DEFAULT, False)
    assert tool_result(call(client, sessions, {"conversationId": "surr"})) == (SURROGATE, False)
    client.source = None
    result, is_error = tool_result(call(client, sessions, {}))
    assert (is_error, result["error"]["code"]) == (True, "missing_source_conversation")


def test_call_without_arguments_uses_the_defaults(client: Client, sessions: Path) -> None:
    before = snapshot(sessions)
    message, _ = client.request("tools/call", {"name": TOOL})
    assert snapshot(sessions) == before
    assert tool_result(message) == (CONV_A_DEFAULT, False)


def test_no_file_was_created(sessions: Path) -> None:
    assert sorted(os.listdir(sessions)) == [
        "broken.json",
        "conv-a-run",
        "conv-a.json",
        "conv-b.json",
        "dir.json",
        "surr.json",
    ]


@pytest.mark.parametrize("mode", ["legacy", MODERN])
def test_official_sdk_client_over_http(http_url: str, sessions: Path, mode: str) -> None:
    """The SDK's own client (which also checks results against the outputSchema) interoperates."""

    async def session() -> tuple[Any, ...]:
        async with McpClient(http_url, mode=mode) as sdk:
            tools = await sdk.list_tools()
            budget = await sdk.call_tool(TOOL, {"conversationId": "conv-b", "maxChars": 5})
            failure = await sdk.call_tool(TOOL, {"conversationId": "nope"})
            return sdk.protocol_version, tools, budget, failure

    before = snapshot(sessions)
    version, tools, budget, failure = anyio.run(session)
    assert snapshot(sessions) == before
    assert version == ("2025-11-25" if mode == "legacy" else MODERN)  # the SDK's newest of each era
    assert [tool.name for tool in tools.tools] == [TOOL]
    assert (budget.is_error, budget.structured_content) == (False, CONV_B_BUDGET_5)
    assert json.loads(budget.content[0].text) == CONV_B_BUDGET_5
    assert failure.is_error is True
    assert failure.structured_content["error"]["code"] == "conversation_not_found"
