"""The reference over HTTP refuses ambiguous request framing and headers, and ends slow bodies quietly.

Each test is an attack as it was made: raw HTTP bytes over a socket to a real reference process on
127.0.0.1, every socket closed by ``with`` and every server stopped by its context manager. Times are
bounded to catch a hang only: speed figures belong to the benchmarks.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from served import Served, reference_over_http

pytestmark = pytest.mark.slow

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
TOOL = "ccweb_list_user_inputs"
READ_BOUND_S = 10.0
"""Seconds a test waits for the server's whole reply (a reply takes milliseconds; this catches a hang)."""
HANG_BOUND_S = 30.0
"""Seconds the drip test waits for every connection to be closed (the body timeout there is 2 s)."""
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": TOOL, "arguments": {}, "_meta": META}}
).encode()
"""A 2026-07-28 tools/call without a conversationId: the answer names the source conversation from the header."""
EMPTY_S = {
    "ok": True, "conversationId": "s", "requestedLimit": 15, "maxChars": 1000, "totalChars": 0,
    "returnedCount": 0, "hasMore": False, "items": [],
}  # fmt: skip
FRAMING_400 = (
    b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: 70\r\n"
    b"connection: close\r\n\r\nBad Request: both Content-Length and Transfer-Encoding (RFC 9112, 6.1)"
)
TIMED_OUT_408 = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def head(port: int, *lines: str, era: str = MODERN) -> bytes:
    """A POST /mcp request head with these extra header lines (no blank line: the caller ends it)."""
    fixed = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Accept: application/json, text/event-stream",
        "Content-Type: application/json",
    ]
    if era == MODERN:
        fixed += [f"MCP-Protocol-Version: {MODERN}", "Mcp-Method: tools/call", f"Mcp-Name: {TOOL}"]
    return "".join(f"{line}\r\n" for line in [*fixed, *lines]).encode()


def call_request(port: int, *lines: str) -> bytes:
    """The whole ``CALL`` request, with these extra header lines."""
    return head(port, *lines, f"Content-Length: {len(CALL)}") + b"\r\n" + CALL


def exchange(port: int, data: bytes) -> tuple[bytes, bool]:
    """Send ``data`` in one write; everything the server sent within the bound, and whether it closed."""
    with socket.create_connection(("127.0.0.1", port), timeout=READ_BOUND_S) as sock:
        sock.sendall(data)
        received = b""
        deadline = time.monotonic() + READ_BOUND_S
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                return received, False
            except ConnectionResetError:
                return received, True
            if not chunk:
                return received, True
            received += chunk
        return received, False


def status_and_json(reply: bytes) -> tuple[bytes, Any]:
    """The status line of a one-response reply with a JSON body, and that body."""
    response_head, _, body = reply.partition(b"\r\n\r\n")
    return response_head.split(b"\r\n")[0], json.loads(body)


def served_log_lines(served: Served) -> list[str]:
    """The server's log lines after the line saying where it serves."""
    lines: list[str] = served.log().splitlines()
    return lines[1:]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions")
    (root / "s.json").write_text('{"id": "s", "messages": []}', encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def srv(sessions: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One reference at its defaults, for the framing and header tests."""
    with reference_over_http(sessions, stderr=tmp_path_factory.mktemp("log") / "stderr.txt") as served:
        yield served


@pytest.mark.parametrize(
    "framing",
    [
        ("Content-Length: {length}", "Transfer-Encoding: chunked"),
        ("transfer-encoding: Chunked", "CONTENT-LENGTH: {length}"),
    ],
)
def test_content_length_with_transfer_encoding_is_400_and_nothing_behind_it_is_served(
    srv: Served, framing: tuple[str, str]
) -> None:
    """Request smuggling: a chunked body under a Content-Length too, a second request behind it in the same
    write. h11 took the chunked framing, answered both and kept the connection (RFC 9112, 6.1: close it)."""
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(CALL), CALL)
    first = head(srv.port, *(line.format(length=len(chunked)) for line in framing)) + b"\r\n" + chunked
    second = head(srv.port, f"Content-Length: {len(CALL)}") + b"\r\n" + CALL
    reply, closed = exchange(srv.port, first + second)
    assert (reply, closed) == (FRAMING_400, True)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("X-CCWeb-Session-Id: s", "X-CCWeb-Session-Id: other"),
        ("X-CCWeb-Session-Id: s", "x-ccweb-session-id: other"),
        ("x-ccweb-session-id: s", "X-CCWEB-SESSION-ID: s"),  # the same value twice is refused too
    ],
)
def test_a_repeated_source_header_is_400_in_any_case(srv: Served, first: str, second: str) -> None:
    """Two source headers: which conversation is the source is ambiguous, so neither is used."""
    reply, closed = exchange(srv.port, call_request(srv.port, first, second))
    message = "Bad Request: the header X-CCWeb-Session-Id is sent 2 times; send it once"
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    assert (status_and_json(reply), closed) == ((b"HTTP/1.1 400 Bad Request", error), True)


def test_one_source_header_is_served(srv: Served) -> None:
    """The control: the same request with one source header is answered with that source."""
    reply, closed = exchange(srv.port, call_request(srv.port, "X-CCWeb-Session-Id: s", "Connection: close"))
    status, answer = status_and_json(reply)
    assert (status, closed) == (b"HTTP/1.1 200 OK", True)
    assert answer["result"]["structuredContent"] == EMPTY_S


def test_the_named_source_header_is_the_one_that_must_not_repeat(sessions: Path, tmp_path: Path) -> None:
    """With ``--source-header X-Agent-Conversation``, that header may not repeat; the default name may."""
    options = ("--source-header", "X-Agent-Conversation")
    with reference_over_http(sessions, *options, stderr=tmp_path / "stderr.txt") as served:
        body = f"Content-Length: {len(CALL)}"
        twice = head(served.port, "x-agent-conversation: s", "X-Agent-Conversation: s", body)
        repeated, repeated_closed = exchange(served.port, twice + b"\r\n" + CALL)
        default_twice = head(
            served.port,
            "X-Agent-Conversation: s",
            "X-CCWeb-Session-Id: a",
            "X-CCWeb-Session-Id: b",
            "Connection: close",
            body,
        )
        other, _ = exchange(served.port, default_twice + b"\r\n" + CALL)
    message = "Bad Request: the header X-Agent-Conversation is sent 2 times; send it once"
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    assert (status_and_json(repeated), repeated_closed) == ((b"HTTP/1.1 400 Bad Request", error), True)
    status, answer = status_and_json(other)
    assert status == b"HTTP/1.1 200 OK"
    assert answer["result"]["structuredContent"] == EMPTY_S


TOKEN = "s3cret"


@pytest.fixture(scope="module")
def token_srv(sessions: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One reference requiring the bearer token, for the credential header tests."""
    log = tmp_path_factory.mktemp("token-log") / "stderr.txt"
    with reference_over_http(sessions, "--auth-token", TOKEN, stderr=log) as served:
        yield served


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Authorization: Bearer wrong", f"Authorization: Bearer {TOKEN}"),  # the last one was used: served
        (f"Authorization: Bearer {TOKEN}", "authorization: Bearer wrong"),  # the last one was used: 401
        (f"authorization: bearer {TOKEN}", f"AUTHORIZATION: Bearer {TOKEN}"),  # the same credential twice too
    ],
)
def test_a_repeated_authorization_header_is_400_in_any_case(token_srv: Served, first: str, second: str) -> None:
    """Two credentials: which one is meant is ambiguous, so neither is tried; a right one behind a wrong one
    is not let in."""
    reply, closed = exchange(token_srv.port, call_request(token_srv.port, "X-CCWeb-Session-Id: s", first, second))
    message = "Bad Request: the header Authorization is sent 2 times; send it once"
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    assert (status_and_json(reply), closed) == ((b"HTTP/1.1 400 Bad Request", error), True)


def test_one_authorization_header_is_served(token_srv: Served) -> None:
    """The control: the same request with one credential is answered."""
    lines = ("X-CCWeb-Session-Id: s", f"Authorization: Bearer {TOKEN}", "Connection: close")
    reply, closed = exchange(token_srv.port, call_request(token_srv.port, *lines))
    status, answer = status_and_json(reply)
    assert (status, closed) == (b"HTTP/1.1 200 OK", True)
    assert answer["result"]["structuredContent"] == EMPTY_S


def test_without_a_token_a_repeated_authorization_header_is_not_read(srv: Served) -> None:
    """A server without ``--auth-token`` reads no credential, so two of them are nothing ambiguous: served."""
    lines = ("X-CCWeb-Session-Id: s", "Authorization: Bearer a", "Authorization: Bearer b", "Connection: close")
    reply, closed = exchange(srv.port, call_request(srv.port, *lines))
    status, answer = status_and_json(reply)
    assert (status, closed) == (b"HTTP/1.1 200 OK", True)
    assert answer["result"]["structuredContent"] == EMPTY_S


DRIPPERS = 20
"""Connections dripping a body, in each era."""


def closed_reply(sock: socket.socket, received: dict[socket.socket, bytes]) -> bytes | None:
    """What the server sent on this non-blocking connection before closing it, or None while it is open."""
    try:
        while chunk := sock.recv(4096):
            received[sock] = received.get(sock, b"") + chunk
    except BlockingIOError:
        return None
    except OSError:  # reset after the server closed it
        pass
    return received.get(sock, b"")


def test_dripped_bodies_are_answered_408_and_closed_with_one_log_line(sessions: Path, tmp_path: Path) -> None:
    """Connections of both eras drip a body (a byte every 0.5 s, above the minimum rate set here) past a 2 s
    body timeout: each is answered 408 and closed, and the log holds one line for all of them and no traceback
    (the legacy era's SDK transport logged each timed-out body as an error, with a ClientDisconnect traceback)."""
    options = ("--body-timeout", "2", "--min-body-rate", "0.1", "--log-interval", "600")
    with reference_over_http(sessions, *options, stderr=tmp_path / "stderr.txt") as served, ExitStack() as stack:
        drippers = []
        for era in (LEGACY, MODERN) * DRIPPERS:
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", served.port), timeout=READ_BOUND_S))
            sock.sendall(head(served.port, "Content-Length: 1000", era=era) + b"\r\n{")
            sock.setblocking(False)
            drippers.append(sock)
        started = time.monotonic()
        replies: dict[int, tuple[float, bytes]] = {}
        received: dict[socket.socket, bytes] = {}
        while len(replies) < len(drippers) and time.monotonic() - started < HANG_BOUND_S:
            for index, sock in enumerate(drippers):
                if index in replies:
                    continue
                reply = closed_reply(sock, received)
                if reply is not None:
                    replies[index] = (time.monotonic() - started, reply)
                    continue
                with contextlib.suppress(OSError):  # closed since the read
                    sock.send(b" ")
            time.sleep(0.5)
        log = served_log_lines(served)
    assert [replies[index][1] for index in sorted(replies)] == [TIMED_OUT_408] * (2 * DRIPPERS)
    times = sorted(elapsed for elapsed, _ in replies.values())
    print(f"{len(replies)} dripped bodies closed after {times[0]:.2f} to {times[-1]:.2f} s")
    assert times[0] >= 1.9  # not before the body timeout
    assert log == ["ccweb-reference: WARNING: closed requests whose body was not complete after 2 s (408)"]
