"""The reference over HTTP stays up under hostile connections: every resource bound, each with a hard time bound.

Each test starts its own server (stderr to a file, so its size can be judged), opens the
hostile connections from this process, and keeps making legitimate calls meanwhile; every
legitimate call must give the exact answer. Latencies are printed (``pytest -s``), never
asserted beyond the client's timeout: speed figures belong to the benchmark.
"""

from __future__ import annotations

import asyncio
import json
import re
import resource
import socket
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from served import Served, reference_over_http

from ccweb_reference.http_limits import HttpLimits, RateLimitedLog
from ccweb_reference.http_protocol import set_no_delay

pytestmark = pytest.mark.slow

LEGACY = "2025-06-18"
MODERN = "2026-07-28"
TOOL = "ccweb_list_user_inputs"
HOLD_S = 4.0
"""How long the hostile connections are held while legitimate calls go on."""
HARD_BOUND_S = 90.0
"""No flood test waits longer than this for its calls or for the server to close connections."""
CALL_TIMEOUT_S = 20.0
"""A legitimate call that takes longer than this fails the test (usual latency: a few ms; one took over 5 s in a
full test run on a loaded 2-core machine, 4,000 held connections beside it). A locked-out server, one held
by 2,000 slow-header connections each until its 2 s header timeout, would take far longer."""
MODERN_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": MODERN,
    "Mcp-Method": "tools/call",
    "Mcp-Name": TOOL,
}
LEGACY_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
EXPECTED = {
    "ok": True, "conversationId": "c", "requestedLimit": 15, "maxChars": 1000, "totalChars": 5,
    "returnedCount": 1, "hasMore": False,
    "items": [
        {"messageId": None, "createdAt": None, "content": "hello", "contentChars": 5, "originalChars": 5,
         "truncated": False}
    ],
}  # fmt: skip


def modern_call(number: int) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    params = {"name": TOOL, "arguments": {"conversationId": "c"}, "_meta": meta}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


@contextmanager
def server(tmp_path: Path, *options: str) -> Iterator[Served]:
    """A reference HTTP server on a free port with these options; stopped (and waited for) at the end."""
    sessions = tmp_path / "sessions"
    sessions.mkdir(exist_ok=True)
    (sessions / "c.json").write_text(json.dumps({"id": "c", "messages": [{"role": "user", "content": "hello"}]}))
    with reference_over_http(sessions, *options, stderr=tmp_path / f"stderr-{time.monotonic_ns()}.txt") as served:
        time.sleep(0.1)  # the probe's connection is gone before the test counts connections
        yield served


def call(client: httpx.Client, url: str, number: int = 1) -> float:
    """One 2026-07-28 tools/call; asserts the exact answer and returns its latency in seconds."""
    started = time.perf_counter()
    reply = client.post(url, headers=MODERN_HEADERS, json=modern_call(number), timeout=CALL_TIMEOUT_S)
    elapsed = time.perf_counter() - started
    assert reply.status_code == 200, reply.text
    assert reply.json()["result"]["structuredContent"] == EXPECTED
    return elapsed


def fresh_call(url: str, number: int = 1) -> float:
    """A call on a new connection, as a client arriving during an attack does."""
    with httpx.Client() as client:
        return call(client, url, number)


def need_descriptors(count: int) -> None:
    """Raise this process's open-file limit to ``count`` (the server inherits it), or skip saying why."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < count:
        if hard != resource.RLIM_INFINITY and hard < count:
            pytest.skip(f"needs {count} open files, the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (count, hard))


def open_connections(port: int, count: int) -> list[socket.socket]:
    """``count`` TCP connections to the server (some may be reset later by it)."""
    sockets = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5.0)
        sock.setblocking(False)
        sockets.append(sock)
    return sockets


def dribble(sockets: list[socket.socket], data: bytes) -> int:
    """Send ``data`` on every socket still open; the number that took it."""
    alive = 0
    for sock in sockets:
        try:
            sock.send(data)
            alive += 1
        except (BlockingIOError, OSError):
            pass
    return alive


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        sock.close()


def assert_quiet(log: str, limit: int = 4_000) -> None:
    """A short log: no traceback, and only a few lines however many refusals there were."""
    assert "Traceback" not in log, log[:2000]
    assert len(log) < limit, log[:2000]


@pytest.mark.parametrize("max_connections", ["256", "5000"])
def test_idle_and_slow_header_connections_do_not_lock_out_calls(tmp_path: Path, max_connections: str) -> None:
    """2,000 idle and 2,000 slow-header connections held for 4 s: calls keep answering, the log stays short.

    With the default cap of 256 the server closes the oldest waiting connections as new ones
    come; with a cap of 5,000 it keeps them all until the idle (1 s) and header (2 s) timeouts
    close them, whatever is still being dribbled.
    """
    need_descriptors(10_000)
    options = ("--max-connections", max_connections, "--idle-timeout", "1", "--header-timeout", "2")
    with server(tmp_path, *options) as srv:
        baseline = [fresh_call(srv.url, n) for n in range(10)]
        idle = open_connections(srv.port, 2_000)
        slow = open_connections(srv.port, 2_000)
        dribble(slow, f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n".encode())
        during: list[float] = []
        started = time.monotonic()
        try:
            while time.monotonic() - started < HOLD_S or len(during) < 10:  # 10 calls, at least 4 s
                assert time.monotonic() - started < HARD_BOUND_S, f"only {len(during)} calls in {HARD_BOUND_S} s"
                dribble(slow, b"X-Slow: 1\r\n")
                during.append(fresh_call(srv.url, len(during)))
                time.sleep(0.05)
            open_idle, open_slow = set(idle), set(slow)
            while (open_idle or open_slow) and time.monotonic() - started < HARD_BOUND_S:
                dribble(list(open_slow), b"X-Slow: 1\r\n")  # a loaded server may close the last ones late
                open_idle = {s for s in open_idle if not closed_by_server(s)}
                open_slow = {s for s in open_slow if not closed_by_server(s)}
                time.sleep(0.1)
            closed_idle, closed_slow = len(idle) - len(open_idle), len(slow) - len(open_slow)
        finally:
            close_all(idle + slow)
        after = [fresh_call(srv.url, n) for n in range(10)]
        log = srv.log()
    print(
        f"cap {max_connections}: baseline median {statistics.median(baseline) * 1000:.1f} ms, during "
        f"{statistics.median(during) * 1000:.1f} ms (max {max(during) * 1000:.1f}, {len(during)} calls), after "
        f"{statistics.median(after) * 1000:.1f} ms; closed by the server: {closed_idle} idle, {closed_slow} slow; "
        f"log {len(log)} bytes"
    )
    assert closed_idle == 2_000  # the idle timeout (1 s) or the cap closed every one
    assert closed_slow == 2_000  # the header timeout (2 s) or the cap, though they kept sending
    assert_quiet(log)


def test_busy_connections_beyond_the_cap_are_refused_at_once(tmp_path: Path) -> None:
    """At the cap with every connection mid-request, a new connection gets a bare 503 at once, then room frees.

    Mid-request: half of a body sent, at a rate above ``--min-body-rate`` (a slower one would be closed instead).
    """
    with server(tmp_path, "--max-connections", "4", "--min-body-rate", "1") as srv:
        head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nContent-Type: application/json\r\n"
        busy = open_connections(srv.port, 4)
        dribble(busy, f"{head}Content-Length: 100\r\n\r\n".encode())
        time.sleep(0.1)
        dribble(busy, b"{" + b" " * 49)  # a body that never completes, but 50 bytes is above 1 byte/s for 50 s
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5.0) as extra:
            started = time.monotonic()
            reply = extra.recv(1024)
            refused_after = time.monotonic() - started
        assert reply == b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        busy.pop().close()
        time.sleep(0.5)
        fresh_call(srv.url)
        close_all(busy)
        log = srv.log()
    print(f"503 after {refused_after * 1000:.1f} ms")
    assert log.count("refused connections: 4 are open and busy") == 1
    assert_quiet(log)


def test_idle_connections_make_room_for_new_ones(tmp_path: Path) -> None:
    """At the cap with idle connections only, each new one closes the oldest idle one and is served.

    The callers keep their keep-alive connections open, so each call finds the cap reached.
    """
    with server(tmp_path, "--max-connections", "4", "--idle-timeout", "30", "--header-timeout", "30") as srv:
        idle = open_connections(srv.port, 4)
        time.sleep(0.3)
        callers = [httpx.Client() for _ in range(5)]
        latencies = [call(client, srv.url, n) for n, client in enumerate(callers)]
        time.sleep(0.3)
        closed = [closed_by_server(s) for s in idle]
        close_all(idle)
        for client in callers:
            client.close()
        log = srv.log()
    print(f"calls at the cap: median {statistics.median(latencies) * 1000:.1f} ms")
    assert closed == [True, True, True, True]
    assert log.count("closed idle connections to admit new ones (limit 4)") == 1
    assert_quiet(log)


def test_a_legacy_session_flood_locks_out_new_clients_only_until_the_idle_expiry(tmp_path: Path) -> None:
    """More initializes than --max-sessions without DELETE: 503 for the excess, a new session once they expire.

    How soon is not timed (a loaded machine is late): the server's log names the idle timeout that closed the
    first session and the 19 it still held, and the wait for a new session is only a net against sessions that
    never expire."""
    with server(tmp_path, "--max-sessions", "20", "--session-idle-timeout", "2") as srv, httpx.Client() as client:
        initialize = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}},
        }  # fmt: skip
        started = time.monotonic()
        statuses = [client.post(srv.url, headers=LEGACY_HEADERS, json=initialize).status_code for _ in range(30)]
        flooded = time.monotonic()
        assert statuses == [200] * 20 + [503] * 10
        while True:
            reply = client.post(srv.url, headers=LEGACY_HEADERS, json=initialize, timeout=CALL_TIMEOUT_S)
            if reply.status_code == 200:
                break
            assert reply.status_code == 503
            assert time.monotonic() - flooded < HARD_BOUND_S, f"still locked out {HARD_BOUND_S} s after the flood"
            time.sleep(0.1)
        waited, since_first = time.monotonic() - flooded, time.monotonic() - started
        session = {"Mcp-Session-Id": reply.headers["mcp-session-id"], "MCP-Protocol-Version": LEGACY}
        notified = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert client.post(srv.url, headers=LEGACY_HEADERS | session, json=notified).status_code == 202
        legacy_call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": modern_call(2)["params"]}
        del legacy_call["params"]["_meta"]
        answer = client.post(srv.url, headers=LEGACY_HEADERS | session, json=legacy_call, timeout=CALL_TIMEOUT_S)
        data = [line[5:] for line in answer.text.splitlines() if line.startswith("data:")]
        assert json.loads(data[-1])["result"]["structuredContent"] == EXPECTED
        log = srv.log()
    print(f"a new session was admitted {waited:.2f} s after the flood, {since_first:.2f} s after its first session")
    assert since_first >= 1.9  # not before the flood's first sessions expired
    assert log.count("closed legacy sessions idle for 2 s (19 still open)") == 1  # the bound configured, not later
    assert log.count("Refusing to open a new session") <= 2
    assert_quiet(log)


def test_the_token_is_checked_before_the_body_is_read(tmp_path: Path) -> None:
    """An unauthenticated request announcing a large body is refused as soon as its head is complete."""
    with server(tmp_path, "--auth-token", "T") as srv:
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5.0) as sock:
            head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\nContent-Length: 900000\r\n\r\n"
            sock.sendall(head.encode())
            reply = sock.recv(4096)
        with httpx.Client() as client:
            authorized = client.post(
                srv.url, headers=MODERN_HEADERS | {"Authorization": "bearer T"}, json=modern_call(1), timeout=5.0
            )
        log = srv.log()
    assert reply.startswith(b"HTTP/1.1 401 ")
    assert b"connection: close" in reply.lower()
    assert authorized.json()["result"]["structuredContent"] == EXPECTED
    assert log.count("refused requests without the bearer token (401)") == 1


def test_concurrent_clients_are_all_served_within_the_cap(tmp_path: Path) -> None:
    """40 clients, each on its own keep-alive connection, 10 calls each, at once: every answer exact."""
    import threading  # noqa: PLC0415

    errors: list[str] = []
    latencies: list[float] = []
    with server(tmp_path, "--max-connections", "64") as srv:

        def client_run(index: int) -> None:
            try:
                with httpx.Client() as client:
                    latencies.extend(call(client, srv.url, index * 100 + n) for n in range(10))
            except (AssertionError, httpx.HTTPError) as exc:
                errors.append(f"client {index}: {exc!r}")

        threads = [threading.Thread(target=client_run, args=(i,)) for i in range(40)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        log = srv.log()
    print(f"40 clients x 10 calls: median {statistics.median(latencies) * 1000:.1f} ms")
    assert errors == []
    assert len(latencies) == 400
    assert_quiet(log, limit=200)


def test_the_rate_limited_log_passes_one_record_per_kind_and_interval() -> None:
    """First of each kind passes in full; repeats within the interval are held and counted; tracebacks go."""
    log = RateLimitedLog(interval=0.2)

    def record(message: str) -> Any:
        try:
            raise OSError("EMFILE")
        except OSError:
            return __import__("logging").LogRecord("x", 30, __file__, 1, message, None, sys.exc_info())

    first = record("too many open files")
    assert log.filter(first) and first.exc_info is not None
    assert [log.filter(record("too many open files")) for _ in range(5)] == [False] * 5
    assert log.filter(record("another kind"))
    time.sleep(0.25)
    later = record("too many open files")
    assert log.filter(later)
    assert later.msg == "too many open files (5 more like this in the last 0 s)"
    assert later.exc_info is None


def test_the_defaults_are_safe() -> None:
    assert HttpLimits() == HttpLimits(
        header_timeout=10.0,
        body_timeout=10.0,
        min_body_rate=1024.0,
        idle_timeout=5.0,
        max_connections=256,
        max_header_bytes=16_384,
        max_sessions=64,
        session_idle_timeout=300.0,
        log_interval=10.0,
    )


def test_connections_have_no_nagle_delay_whatever_protocol_the_listening_socket_has() -> None:
    """uvicorn before 0.55 listens on a socket of protocol 0, on which asyncio sets no TCP_NODELAY.

    Such connections waited about 40 ms (the peer's delayed ACK) between a response's head and
    its body; the reference sets TCP_NODELAY on each connection itself.
    """
    seen: dict[str, int] = {}

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
            sock = transport.get_extra_info("socket")
            seen["before"] = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            set_no_delay(transport)
            seen["after"] = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            transport.close()

    async def connect_once() -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 0)  # as uvicorn < 0.55 binds it
        listener.bind(("127.0.0.1", 0))
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        async with server:
            _, writer = await asyncio.wait_for(asyncio.open_connection(*listener.getsockname()), 5.0)
            for _ in range(500):  # at most 5 s for the server side to see the connection
                if "after" in seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    asyncio.run(connect_once())
    print(f"TCP_NODELAY as asyncio left it: {seen['before']}")
    assert seen["after"] != 0


def test_no_delay_leaves_a_unix_socket_alone() -> None:
    left, right = socket.socketpair()
    with left, right:

        class Transport(asyncio.BaseTransport):
            def get_extra_info(self, name: str, default: Any = None) -> Any:
                return left if name == "socket" else default

        set_no_delay(Transport())  # no error: TCP options do not apply to it


def send_head(port: int, head: bytes) -> bytes:
    """Send a request head in one write; the server's whole response (read until its length is in, or it closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=CALL_TIMEOUT_S) as sock:
        sock.sendall(head)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
            response_head, blank, body = answer.partition(b"\r\n\r\n")
            length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", response_head)
            if blank and length is not None and len(body) >= int(length.group(1)):
                break
    return answer


def padded_head(port: int, total: int) -> bytes:
    """A ``GET /mcp`` head of exactly ``total`` bytes."""
    start = f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Pad: ".encode()
    return start + b"a" * (total - len(start) - 4) + b"\r\n\r\n"


def test_a_complete_head_over_the_bound_is_refused_even_in_one_write(tmp_path: Path) -> None:
    """h11 bounds only an incomplete head; a 16 KB head sent whole is refused too (431, closed)."""
    with server(tmp_path, "--max-header-bytes", "4096") as srv:
        refused = send_head(srv.port, padded_head(srv.port, 16_384))
        at_bound = send_head(srv.port, padded_head(srv.port, 4_096))
        over_bound = send_head(srv.port, padded_head(srv.port, 4_097))
        fresh_call(srv.url)  # still serving
        log = srv.log()
    body = b"Request header fields too large"
    assert refused == (
        b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
    )
    assert over_bound == refused
    assert at_bound.startswith(b"HTTP/1.1 406 Not Acceptable\r\n")  # the head passed; the GET lacks an Accept
    assert "refused request heads over 4096 bytes (431)" in log
    assert_quiet(log)


def peak_rss_mb(pid: int) -> float:
    """A process's peak resident memory so far (``VmHWM``), in MB."""
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert match is not None
    return int(match.group(1)) / 1024


UNREAD_BYTES = 16 << 20
"""Less than a file the server must not read: a gigabyte, or the 128 MiB that ``--max-file-bytes`` bounds a read to."""


def bytes_read(pid: int) -> int:
    """The bytes a process has read so far through ``read`` and ``pread`` (``rchar``), files and pipes alike."""
    match = re.search(r"^rchar: (\d+)$", Path(f"/proc/{pid}/io").read_text(encoding="ascii"), re.MULTILINE)
    assert match is not None
    return int(match.group(1))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="reads /proc")
def test_a_gigabyte_file_stalls_no_other_client_and_stays_small(tmp_path: Path) -> None:
    """A call on a 1 GiB file (sparse: a JSON string of zero bytes) is refused by the size bound without reading
    it (the server's read bytes and memory barely move), and a second client's tools/list is answered meanwhile.

    No latency is asserted: a server that read the file (the stall this guards against) reads a gigabyte, or the
    bound's 128 MiB, whatever the machine's speed; the listings' times are printed."""
    with server(tmp_path) as srv:
        big = tmp_path / "sessions" / "big.json"
        with big.open("wb") as handle:
            handle.write(b'{"messages": [{"role": "user", "content": "')
            handle.truncate((1 << 30) - 4)
            handle.seek(0, 2)
            handle.write(b'"}]}')
        try:
            results: dict[str, Any] = {}

            def big_call() -> None:
                params = {
                    "name": TOOL,
                    "arguments": {"conversationId": "big"},
                    "_meta": modern_call(1)["params"]["_meta"],
                }
                with httpx.Client() as client:
                    reply = client.post(
                        srv.url, headers=MODERN_HEADERS, timeout=HARD_BOUND_S,
                        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
                    )  # fmt: skip
                results["call"] = reply.json()["result"]["structuredContent"]

            read_before = bytes_read(srv.process.pid)
            worker = threading.Thread(target=big_call)
            worker.start()
            listing: list[float] = []
            with httpx.Client() as client:
                while worker.is_alive() or not listing:
                    started = time.perf_counter()
                    meta = modern_call(2)["params"]["_meta"]
                    request = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}
                    headers = {**MODERN_HEADERS, "Mcp-Method": "tools/list"}
                    reply = client.post(srv.url, headers=headers, json=request, timeout=CALL_TIMEOUT_S)
                    listing.append(time.perf_counter() - started)
                    assert [t["name"] for t in reply.json()["result"]["tools"]] == [TOOL]
            worker.join(timeout=HARD_BOUND_S)
            read = bytes_read(srv.process.pid) - read_before
            peak = peak_rss_mb(srv.process.pid)
        finally:
            big.unlink()
    print(
        f"1 GiB file: tools/list max {max(listing) * 1000:.1f} ms over {len(listing)} calls; {read:,} bytes read;"
        f" peak {peak:.0f} MB"
    )
    assert results["call"] == {
        "ok": False,
        "error": {
            "code": "conversation_unreadable",
            "message": "the conversation file is larger than this server reads (1,073,741,824 bytes; the bound is"
            " 134,217,728, set by ccweb-reference --max-file-bytes)",
        },
    }
    assert read < UNREAD_BYTES  # the file was not read (the listings and the call's own request are kilobytes)
    assert peak < 300


def test_a_symlinked_sessions_dir_is_followed_as_it_is_repointed(tmp_path: Path) -> None:
    """``--sessions-dir current`` where ``current`` is a link a deploy repoints: the next call reads the new folder."""
    releases = []
    for number in (1, 2):
        folder = tmp_path / f"release-{number}"
        folder.mkdir()
        message = {"role": "user", "content": f"release {number}"}
        (folder / "c.json").write_text(json.dumps({"id": "c", "messages": [message]}))
        releases.append(folder)
    current = tmp_path / "current"
    current.symlink_to(releases[0])
    contents = []
    with reference_over_http(current, stderr=tmp_path / "stderr.txt") as srv, httpx.Client() as client:
        for number, release in enumerate(releases):
            if number:
                fresh = tmp_path / "current.new"
                fresh.symlink_to(release)
                fresh.replace(current)  # atomic, as a deploy does it
            reply = client.post(srv.url, headers=MODERN_HEADERS, json=modern_call(number), timeout=CALL_TIMEOUT_S)
            contents.append(reply.json()["result"]["structuredContent"]["items"][0]["content"])
    assert contents == ["release 1", "release 2"]


DRIPPERS = 300
TOKEN = "s3cret"
TIMED_OUT_408 = b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"


def body_head(port: int, authorization: str | None, length: int = 1_000) -> bytes:
    """A tools/call head announcing a ``length``-byte body, which is then never sent whole."""
    auth = f"Authorization: Bearer {authorization}\r\n" if authorization else ""
    return (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{auth}Accept: application/json, text/event-stream\r\n"
        f"Content-Type: application/json\r\nMCP-Protocol-Version: {MODERN}\r\nContent-Length: {length}\r\n\r\n{{"
    ).encode()


_RECEIVED: dict[socket.socket, bytes] = {}


def closed_reply(sock: socket.socket) -> bytes | None:
    """What the server sent on this connection before closing it, or None while it is open."""
    try:
        while chunk := sock.recv(4096):
            _RECEIVED[sock] = _RECEIVED.get(sock, b"") + chunk
    except BlockingIOError:
        return None
    except OSError:  # reset
        pass
    return _RECEIVED.pop(sock, b"")


@pytest.mark.parametrize("token", [None, TOKEN])
def test_slow_bodies_do_not_lock_out_calls(tmp_path: Path, token: str | None) -> None:
    """300 connections drip a request body (1 byte per 2 s) for 5 s, each one the server closes opened again at
    once: a new client is still answered, loopback or authenticated alike, at the default bounds but the body
    timeout.

    That one is an hour: locked out, a call would wait for a dripper's body timeout to free a connection, and is
    then never answered within the client's time-out; the server makes room at once instead, closing the slow
    bodies (its log says so). No latency is asserted (bounds of 1 s and of 5 s, speed checks rather than lock-out
    checks, failed beside 8 busy processes); the figures are printed."""
    need_descriptors(4_000)
    options = ("--body-timeout", "3600", *(("--auth-token", token) if token else ()))
    headers = MODERN_HEADERS | ({"Authorization": f"Bearer {token}"} if token else {})
    with server(tmp_path, *options) as srv:
        head = body_head(srv.port, token)
        drippers = open_connections(srv.port, DRIPPERS)
        dribble(drippers, head)
        latencies: list[float] = []
        reopened = 0
        started = last_drip = time.monotonic()
        try:
            while time.monotonic() - started < HOLD_S + 1:
                if time.monotonic() - last_drip >= 2.0:
                    dribble(drippers, b" ")
                    last_drip = time.monotonic()
                for index, sock in enumerate(drippers):
                    if closed_reply(sock) is not None:  # the attacker comes back at once
                        sock.close()
                        drippers[index] = open_connections(srv.port, 1)[0]
                        dribble([drippers[index]], head)
                        reopened += 1
                with httpx.Client() as client:
                    begun = time.perf_counter()
                    reply = client.post(
                        srv.url, headers=headers, json=modern_call(len(latencies)), timeout=CALL_TIMEOUT_S
                    )
                    latencies.append(time.perf_counter() - begun)
                assert reply.status_code == 200, (len(latencies), reply.status_code, reply.text)
                assert reply.json()["result"]["structuredContent"] == EXPECTED
                time.sleep(0.1)
        finally:
            close_all(drippers)
        log = srv.log()
    print(
        f"token {token is not None}: {len(latencies)} calls while {DRIPPERS} connections dripped, median "
        f"{statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms; {reopened} reopened"
    )
    assert reopened >= DRIPPERS  # every dripper was closed at least once, long before the body timeout
    assert "closed slow request bodies to admit new connections (limit 256)" in log
    assert_quiet(log)


@pytest.mark.parametrize(
    ("options", "closed_after", "closed_by"),
    [  # the rate is met: the body timeout closes; the rate is not: closed at the first check
        (("--body-timeout", "2", "--min-body-rate", "0.1"), 2.0, ("whose body was not complete after 2 s", None)),
        (("--body-timeout", "30", "--min-body-rate", "64"), 1.0, (None, "arriving slower than 64 bytes/s")),
    ],
)
def test_a_dripped_body_is_answered_408_and_closed(
    tmp_path: Path, options: tuple[str, ...], closed_after: float, closed_by: tuple[str | None, str | None]
) -> None:
    """20 connections drip a body (1 byte per 0.5 s); each is answered 408 and closed by its bound, not before it.

    Which bound closed them is read from the server's log, not from how late they closed (a loaded machine's
    lateness is no one's bug); the times are printed."""
    with server(tmp_path, *options) as srv:
        drippers = open_connections(srv.port, 20)
        dribble(drippers, body_head(srv.port, None))
        started = time.monotonic()
        replies: dict[int, tuple[float, bytes]] = {}
        try:
            while len(replies) < len(drippers) and time.monotonic() - started < HARD_BOUND_S:
                dribble([s for n, s in enumerate(drippers) if n not in replies], b" ")
                for index, sock in enumerate(drippers):
                    reply = None if index in replies else closed_reply(sock)
                    if reply is not None:
                        replies[index] = (time.monotonic() - started, reply)
                time.sleep(0.05)
        finally:
            close_all(drippers)
        fresh_call(srv.url)
        log = srv.log()
    times = sorted(elapsed for elapsed, _ in replies.values())
    print(f"{options}: closed after {times[0]:.2f} to {times[-1]:.2f} s")
    assert [reply for _, reply in replies.values()] == [TIMED_OUT_408] * 20
    assert closed_after - 0.1 <= times[0]
    timed_out = re.search(r"whose body was not complete after [0-9.]+ s", log)
    too_slow = re.search(r"arriving slower than [0-9.]+ bytes/s", log)
    assert (timed_out and timed_out.group(), too_slow and too_slow.group()) == closed_by
    assert_quiet(log)


BIG_MIB = 48
LARGE_CALLS_NET_S = 900.0
"""A safety net for the large-file calls, never a speed check: at most two 127 MiB reads run at once (the read
budget), so the last of twelve waits for five rounds of reads, which a busy machine stretches many times over."""


def write_long_session(path: Path, mib: int) -> int:
    """A valid cc-web session of about ``mib`` MiB: alternating user and assistant messages of 4 KB, message N
    saying ``"N xxxx..."``; the number of messages."""
    filler = "x" * 4_000
    with path.open("w", encoding="utf-8") as handle:
        handle.write('{"id": "big", "messages": [')
        number = 0
        while handle.tell() < mib << 20:
            role = "user" if number % 2 == 0 else "assistant"
            message = {"role": role, "content": f"{number} {filler}", "id": f"m{number}"}
            handle.write(("," if number else "") + json.dumps(message))
            number += 1
        handle.write("]}")
    return number


def _twelve_calls_on(tmp_path: Path, mib: int, *options: str) -> tuple[int, float, float, float]:
    """12 concurrent calls, each its own limit, on a session file of about ``mib`` MiB; every answer exact.

    The file's size, then the server's peak memory (MB) before the calls and after them, and the seconds taken.
    """
    psutil = pytest.importorskip("psutil")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    count = write_long_session(sessions / "big.json", mib)
    size = (sessions / "big.json").stat().st_size
    answers: dict[int, Any] = {}
    with reference_over_http(sessions, *options, stderr=tmp_path / "stderr.txt") as srv:
        time.sleep(0.2)
        baseline = peak_rss_mb(srv.process.pid)
        resident = psutil.Process(srv.process.pid).memory_info().rss / 2**20

        def big_call(number: int) -> None:
            params = {  # each its own limit: no call is answered from the result cache
                "name": TOOL,
                "arguments": {"conversationId": "big", "limit": number + 1},
                "_meta": modern_call(1)["params"]["_meta"],
            }
            request = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}
            reply = httpx.post(srv.url, headers=MODERN_HEADERS, json=request, timeout=LARGE_CALLS_NET_S)
            answers[number] = reply.json()["result"]["structuredContent"]

        started = time.monotonic()
        workers = [threading.Thread(target=big_call, args=(number,)) for number in range(12)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=LARGE_CALLS_NET_S)
        elapsed = time.monotonic() - started
        peak = peak_rss_mb(srv.process.pid)
        log = srv.log()
    grown = peak - baseline
    print(
        f"12 calls on {size / 2**20:.1f} MiB: {elapsed:.2f} s; rss before {resident:.0f} MB, peak {baseline:.0f} -> "
        f"{peak:.0f} MB (+{grown:.0f} MB, {grown * 2**20 / size:.2f} file sizes)"
    )
    newest = (count - 1) // 2 * 2  # the newest user message's number
    item = {
        "messageId": f"m{newest}", "createdAt": None, "content": f"{newest} ".ljust(1_000, "x"), "contentChars": 1_000,
        "originalChars": len(f"{newest} ") + 4_000, "truncated": True,
    }  # fmt: skip
    answer = {
        "ok": True, "conversationId": "big", "maxChars": 1_000, "totalChars": 1_000, "returnedCount": 1,
        "hasMore": True, "items": [item],
    }  # fmt: skip
    assert answers == {number: answer | {"requestedLimit": number + 1} for number in range(12)}
    assert_quiet(log)
    return size, baseline, peak, elapsed


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_concurrent_calls_on_a_large_file_stay_within_the_read_budget(tmp_path: Path) -> None:
    """12 concurrent calls on a 48 MiB session file, read budget 64 MiB (one such file at a time): every answer
    exact, and the server's peak memory grows by less than 2 file sizes (unbounded, it grew by 9: about 440 MB)."""
    size, baseline, peak, _ = _twelve_calls_on(tmp_path, BIG_MIB, "--read-budget-bytes", str(64 << 20))
    assert (peak - baseline) * 2**20 < 2 * size


LARGEST_MIB = 127
PEAK_BOUND_MB = 600
"""The stated bound of the reference's memory under 12 concurrent calls on a 127 MiB file at its defaults
(docs/reference-server.md): the default read budget (256 MiB, two such files) plus what they parse into, with
room for a loaded machine. Measured 331 MB; before the budget, 1,343 MB."""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_twelve_concurrent_calls_on_a_127_mib_file_stay_under_the_stated_bound_at_the_defaults(tmp_path: Path) -> None:
    """The tester's attack as it was: 12 concurrent calls on a 127 MiB file, the reference at its defaults."""
    size, _, peak, _ = _twelve_calls_on(tmp_path, LARGEST_MIB)
    assert (size >> 20, size < 128 << 20) == (LARGEST_MIB, True)  # under --max-file-bytes: every call reads it
    assert peak < PEAK_BOUND_MB
