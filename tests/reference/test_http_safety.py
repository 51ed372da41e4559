"""HTTP hardening of the reference: Host and Origin checks, body limit, bind and token rules."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ccweb_reference.cli import main
from ccweb_reference.http import is_loopback

StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]  # the conftest fixture
LEGACY = "2025-06-18"
MODERN = "2026-07-28"
TOKEN = "s3cret-token"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "kit-tests", "version": "0"}},
}  # fmt: skip
MODERN_CALL = {
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {
        "name": "ccweb_list_user_inputs", "arguments": {"conversationId": "c"},
        "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}},
    },
}  # fmt: skip
MODERN_HEADERS = ACCEPT | {
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
    "Mcp-Name": "ccweb_list_user_inputs",
}
EMPTY_C = {
    "ok": True, "conversationId": "c", "requestedLimit": 15, "maxChars": 1000, "totalChars": 0,
    "returnedCount": 0, "hasMore": False, "items": [],
}  # fmt: skip


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions")
    (root / "c.json").write_text('{"id": "c", "messages": []}', encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def urls(start_server: StartServer, sessions: Path) -> dict[str, str]:
    """Two loopback servers: one open, one requiring the bearer token."""
    _, open_url = start_server(sessions, http=True)
    _, token_url = start_server(sessions, "--auth-token", TOKEN, http=True)
    assert open_url is not None
    assert token_url is not None
    return {"open": open_url, "token": token_url}


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=10.0) as client:
        yield client


def post(
    http: httpx.Client, url: str, era: str, headers: dict[str, str] | None = None, **kwargs: Any
) -> httpx.Response:
    """POST an initialize (legacy) or a tools/call (2026-07-28) with extra headers."""
    base, body = (ACCEPT, INITIALIZE) if era == LEGACY else (MODERN_HEADERS, MODERN_CALL)
    if "content" not in kwargs:
        kwargs["json"] = body
    return http.post(url, headers=base | (headers or {}), **kwargs)


def assert_served(reply: httpx.Response, era: str) -> None:
    assert reply.status_code == 200, reply.text
    if era == LEGACY:
        data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:")]
        assert json.loads(data[-1])["result"]["protocolVersion"] == LEGACY
    else:
        assert reply.json()["result"]["structuredContent"] == EMPTY_C


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_loopback_host_and_origin_are_served(http: httpx.Client, urls: dict[str, str], era: str) -> None:
    port = httpx.URL(urls["open"]).port
    assert_served(post(http, urls["open"], era), era)
    assert_served(post(http, urls["open"], era, {"Origin": f"http://localhost:{port}"}), era)


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:80", "127.0.0.1.evil.example:1234", "127.0.0.1:1.evil.com", "localhost:"]
)
def test_wrong_host_is_421(http: httpx.Client, urls: dict[str, str], era: str, host: str) -> None:
    assert post(http, urls["open"], era, {"Host": host}).status_code == 421


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize("origin", ["https://evil.example", "http://127.0.0.1.evil.example", "null"])
def test_foreign_origin_is_403(http: httpx.Client, urls: dict[str, str], era: str, origin: str) -> None:
    assert post(http, urls["open"], era, {"Origin": origin}).status_code == 403


def _big_body(era: str) -> bytes:
    body = json.loads(json.dumps(INITIALIZE if era == LEGACY else MODERN_CALL))
    body["params"]["padding"] = "x" * 1_000_001
    return json.dumps(body).encode()


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_body_over_1_mb_is_413(http: httpx.Client, urls: dict[str, str], era: str) -> None:
    assert post(http, urls["open"], era, content=_big_body(era)).status_code == 413


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_chunked_body_over_1_mb_is_413(http: httpx.Client, urls: dict[str, str], era: str) -> None:
    data = _big_body(era)
    chunks = (data[i : i + 65536] for i in range(0, len(data), 65536))
    assert post(http, urls["open"], era, content=chunks).status_code == 413


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_server_still_serves_after_rejections(http: httpx.Client, urls: dict[str, str], era: str) -> None:
    assert_served(post(http, urls["open"], era), era)


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize(
    "authorization", [None, f"Bearer {TOKEN}x", f"Bearer {TOKEN.upper()}", TOKEN, "Bearer", f"Basic {TOKEN}"]
)
def test_token_required(http: httpx.Client, urls: dict[str, str], era: str, authorization: str | None) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    reply = post(http, urls["token"], era, headers)
    assert reply.status_code == 401
    assert reply.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize("era", [LEGACY, MODERN])
@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_token_accepted(http: httpx.Client, urls: dict[str, str], era: str, scheme: str) -> None:
    """The scheme name is case-insensitive (RFC 9110, 11.1); the token is not."""
    assert_served(post(http, urls["token"], era, {"Authorization": f"{scheme} {TOKEN}"}), era)


def refused(host: str) -> str:
    return f"ccweb-reference: error: refusing to bind {host}, which is not loopback, without --auth-token\n"


def test_non_loopback_bind_without_token_is_refused(sessions: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "ccweb_reference.cli",
        "--sessions-dir",
        str(sessions),
        "--http",
        "--host",
        "0.0.0.0",
    ]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == refused("0.0.0.0")


@pytest.mark.parametrize("host", ["::", "192.0.2.1", "example.com", "127.0.0.1.nip.io"])
def test_other_non_loopback_binds_without_token_are_refused(
    sessions: Path, host: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--sessions-dir", str(sessions), "--http", "--host", host]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == refused(host)


@pytest.mark.parametrize("token", ["", " "])
def test_empty_token_is_a_usage_error(
    sessions: Path, token: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_serve(*args: object) -> None:
        raise AssertionError("the server must not start")

    monkeypatch.setattr("ccweb_reference.cli._serve_http", must_not_serve)
    assert main(["--sessions-dir", str(sessions), "--http", "--auth-token", token]) == 2
    assert capsys.readouterr().err == "ccweb-reference: error: --auth-token must not be empty\n"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        *[("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True), ("localhost", True)],
        *[("0.0.0.0", False), ("::", False), ("10.0.0.1", False), ("", False)],
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


@pytest.mark.parametrize("era", [LEGACY, MODERN])
def test_allow_host_admits_exactly_the_named_host(
    start_server: StartServer, sessions: Path, http: httpx.Client, era: str
) -> None:
    """--allow-host names the Host clients use off loopback; other names stay refused."""
    _, url = start_server(sessions, "--allow-host", "ccweb.test", http=True)
    assert url is not None
    port = url.rsplit(":", 1)[1].split("/")[0]
    assert_served(post(http, url, era, {"Host": f"ccweb.test:{port}"}), era)
    assert post(http, url, era, {"Host": f"other.test:{port}"}).status_code == 421
