"""The reference over HTTP under load: 50 concurrent clients, both MCP eras, every answer exact.

Each client binds its own source conversation (header) and makes calls with and without
``conversationId``, with limits and budgets that cut, and two error calls, in the legacy era
(a session) and in 2026-07-28 (stateless). The figures (requests, errors, median latency)
are printed (``pytest -s``) and written to ``load.json`` under tmp_path; nothing is timed.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]  # the conftest fixture
CLIENTS = 50
CONVERSATIONS = 10
LEGACY = "2025-06-18"
MODERN = "2026-07-28"
TOOL = "ccweb_list_user_inputs"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# --- fixtures with answers worked out here -------------------------------------------------


def inputs(k: int) -> list[str]:
    """The user inputs of conversation conv-k (k + 5 of them, 14-15 characters each)."""
    return [f"conv-{k} input {n}" for n in range(1, k + 6)]


def timestamp(n: int) -> str:
    return f"2026-01-01T00:00:{n:02d}.000Z"


def write_conversations(root: Path) -> None:
    for k in range(CONVERSATIONS):
        messages: list[dict[str, Any]] = []
        for n, content in enumerate(inputs(k), start=1):
            messages.append({"role": "user", "content": content, "timestamp": timestamp(n)})
            messages.append({"role": "assistant", "content": "ok", "timestamp": timestamp(n)})
        session = {"id": f"conv-{k}", "title": "t", "hasUnread": False, "messages": messages}
        (root / f"conv-{k}.json").write_text(json.dumps(session, indent=2), encoding="utf-8")


def expected(k: int, limit: int = 15, max_chars: int = 1000) -> dict[str, Any]:
    """The exact success object for conv-k: the window, then the budget from the newest (D-2)."""
    stored = inputs(k)
    window = list(enumerate(stored, start=1))[-limit:]
    remaining, items = max_chars, []
    for n, content in reversed(window):
        if remaining == 0:
            break
        kept = content[:remaining]
        items.insert(0, {
            "messageId": None, "createdAt": timestamp(n), "content": kept, "contentChars": len(kept),
            "originalChars": len(content), "truncated": len(kept) < len(content),
        })  # fmt: skip
        remaining -= len(kept)
        if len(kept) < len(content):
            break
    whole = sum(1 for i in items if not i["truncated"])
    return {
        "ok": True, "conversationId": f"conv-{k}", "requestedLimit": limit, "maxChars": max_chars,
        "totalChars": sum(i["contentChars"] for i in items), "returnedCount": len(items),
        "hasMore": whole < len(stored), "items": items,
    }  # fmt: skip


def plan(client: int) -> list[tuple[dict[str, Any], dict[str, Any], bool]]:
    """(arguments, expected result object without error messages, isError) for one client's calls."""
    own, other = client % CONVERSATIONS, (client * 7 + 3) % CONVERSATIONS
    return [
        ({}, expected(own), False),
        ({"conversationId": f"conv-{other}"}, expected(other), False),
        ({"conversationId": f"conv-{other}", "limit": 3, "maxChars": 20}, expected(other, 3, 20), False),
        ({"limit": 50, "maxChars": 29}, expected(own, 50, 29), False),
        ({"conversationId": "conv-missing"}, {"ok": False, "error": {"code": "conversation_not_found"}}, True),
        ({"limit": 0}, {"ok": False, "error": {"code": "invalid_arguments", "field": "limit"}}, True),
    ]


# --- a client of one era ----------------------------------------------------------------------


class Client:
    def __init__(self, url: str, era: str, source: str) -> None:
        self.url, self.era, self.source, self.next_id = url, era, source, 0
        self.http = httpx.Client(timeout=60.0, trust_env=False)
        self.session_id: str | None = None
        self.requests = 0
        self.latencies: list[float] = []

    def headers(self, method: str) -> dict[str, str]:
        headers = ACCEPT | {"X-CCWeb-Session-Id": self.source}
        if self.era == MODERN:
            return headers | {"MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Mcp-Name": TOOL}
        if self.session_id is not None:
            headers |= {"MCP-Protocol-Version": LEGACY, "Mcp-Session-Id": self.session_id}
        return headers

    def post(self, body: dict[str, Any], method: str) -> httpx.Response:
        started = time.perf_counter()
        reply = self.http.post(self.url, headers=self.headers(method), json=body)
        self.latencies.append(time.perf_counter() - started)
        self.requests += 1
        return reply

    def connect(self) -> None:
        if self.era == LEGACY:
            params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}
            reply = self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}, "initialize")
            assert reply.status_code == 200, reply.text
            self.session_id = reply.headers["mcp-session-id"]
            note = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, "notifications/initialized")
            assert note.status_code == 202

    def call(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The JSON-RPC response to one tools/call."""
        self.next_id += 1
        params: dict[str, Any] = {"name": TOOL, "arguments": arguments}
        if self.era == MODERN:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params}
        reply = self.post(body, "tools/call")
        if reply.status_code != 200:
            raise AssertionError(f"HTTP {reply.status_code}: {reply.text[:200]}")
        if reply.headers["content-type"].startswith("application/json"):
            texts = [reply.text]
        else:
            texts = [line[5:].strip() for line in reply.text.splitlines() if line.startswith("data:")]
        for text in texts:
            message: dict[str, Any] = json.loads(text) if text else {}
            if message.get("id") == self.next_id:
                return message
        raise AssertionError(f"no response with id {self.next_id} in {reply.text[:200]!r}")

    def close(self) -> int | None:
        """End the legacy session (its DELETE's status), free the connection."""
        status = None
        if self.session_id is not None:
            status = self.http.delete(self.url, headers=self.headers("DELETE")).status_code
            self.requests += 1
        self.http.close()
        return status


def check(response: dict[str, Any], want: dict[str, Any], want_error: bool) -> str | None:
    """None when ``response`` carries exactly the wanted result, else what differs."""
    result = response.get("result")
    if not isinstance(result, dict):
        return f"not a tool result: {json.dumps(response)[:200]}"
    structured = result.get("structuredContent")
    if [json.loads(b["text"]) for b in result.get("content", [])] != [structured]:
        return "the text block and structuredContent differ"
    if result.get("isError", False) is not want_error:
        return f"isError is {result.get('isError')!r}"
    got = json.loads(json.dumps(structured))
    if want_error:
        message = got["error"].pop("message", None)
        if not isinstance(message, str) or not message:
            return "the error has no message"
    return None if got == want else f"expected {json.dumps(want)[:200]}, got {json.dumps(got)[:200]}"


# --- the load -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url(start_server: StartServer, tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("load")
    write_conversations(root)
    _, served = start_server(root, http=True)
    assert served is not None
    return served


def test_fifty_concurrent_clients_get_exact_answers(url: str, tmp_path: Path) -> None:
    start = threading.Barrier(CLIENTS)
    clients: list[Client] = []
    problems: list[str] = []
    lock = threading.Lock()
    calls = [0]

    def work(index: int) -> None:
        source = f"conv-{index % CONVERSATIONS}"
        start.wait()
        for era in (LEGACY, MODERN):
            client = Client(url, era, source)
            with lock:
                clients.append(client)
            try:
                client.connect()
                for arguments, want, want_error in plan(index):
                    difference = check(client.call(arguments), want, want_error)
                    with lock:
                        calls[0] += 1
                        if difference is not None:
                            problems.append(f"client {index} {era} {arguments}: {difference}")
            except Exception as exc:  # reported below, with the client that saw it
                with lock:
                    problems.append(f"client {index} {era}: {type(exc).__name__}: {exc}")
            finally:
                status = client.close()
                if status not in (None, 200):
                    with lock:
                        problems.append(f"client {index}: DELETE of the session gave HTTP {status}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not any(thread.is_alive() for thread in threads)

    latencies = [seconds for client in clients for seconds in client.latencies]  # POSTs only
    figures = {
        "clients": CLIENTS,
        "eras": [LEGACY, MODERN],
        "requests": sum(client.requests for client in clients),
        "toolCalls": calls[0],
        "errors": len(problems),
        "medianLatencyMs": round(statistics.median(latencies) * 1000, 1),
        "p95LatencyMs": round(statistics.quantiles(latencies, n=20)[-1] * 1000, 1),
    }
    (tmp_path / "load.json").write_text(json.dumps(figures, indent=2), encoding="utf-8")
    print(f"\nHTTP load: {json.dumps(figures)}")
    assert problems == []
    assert calls[0] == CLIENTS * 2 * len(plan(0))
    assert figures["requests"] == CLIENTS * (2 * len(plan(0)) + 3)  # + initialize, initialized, DELETE
