"""The reference against hostile session files: through the store and through a running stdio server.

Every case gets the exact result or the registry error code D-7 / D-8 name, and after each
one the server still answers a plain conversation. Big files are generated here, in tmp_path.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from line_client import TIMEOUT, TOOL, LineClient, without_message

from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool

StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]  # the conftest fixture
PLAIN = b'{"id": "plain", "messages": [{"role": "user", "content": "still here", "timestamp": "t0"}]}'


# --- expected objects -------------------------------------------------------------------


def item(content: str, original: str | None = None, created_at: str | None = "t") -> dict[str, Any]:
    original = content if original is None else original
    return {
        "messageId": None,
        "createdAt": created_at,
        "content": content,
        "contentChars": len(content),
        "originalChars": len(original),
        "truncated": content != original,
    }


def success(conversation_id: str, items: list[dict], has_more: bool) -> dict[str, Any]:
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": 15,
        "maxChars": 1000,
        "totalChars": sum(i["contentChars"] for i in items),
        "returnedCount": len(items),
        "hasMore": has_more,
        "items": items,
    }


def error(code: str) -> dict[str, Any]:
    """An error object without its free-text message (checked to be non-empty text, then dropped)."""
    return {"ok": False, "error": {"code": code}}


def session(conversation_id: str, messages: list[Any]) -> bytes:
    """A cc-web session file, pretty-printed as cc-web writes it."""
    document = {"id": conversation_id, "title": "t", "hasUnread": True, "agent": "claude", "messages": messages}
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8")


def user(content: str, timestamp: str = "t") -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": timestamp}


# --- the cases: write something at <sessions>/<id>.json, expect a result ---------------------


@dataclass(frozen=True)
class Case:
    make: Callable[[Path, str], None]
    """Creates ``<id>.json`` (or something named so) in the sessions directory."""
    expected: Callable[[str], dict[str, Any]]


def write(data: bytes) -> Callable[[Path, str], None]:
    return lambda root, cid: (root / f"{cid}.json").write_bytes(data)


def fifty_megabytes(root: Path, cid: str) -> None:
    # 500 pairs of ~50 KB messages; the newest user input is cut to the 1,000-character budget
    parts = []
    for n in range(500):
        parts.append(user(f"input {n:03d} " + "u" * 50_000))
        parts.append({"role": "assistant", "content": "a" * 50_000, "timestamp": "t", "toolCalls": []})
    data = session(cid, parts)
    assert len(data) > 50_000_000
    (root / f"{cid}.json").write_bytes(data)


BIG_CONTENT = "a\U0001f600" * (1 << 19)  # 1,048,576 code points, half of them outside the BMP
MANY = 100_000
DEEP = 100_000


def many_messages(root: Path, cid: str) -> None:
    messages = [user(f"message {n}") if n % 2 == 0 else {"role": "assistant", "content": "x"} for n in range(MANY)]
    (root / f"{cid}.json").write_bytes(session(cid, messages))


def directory(root: Path, cid: str) -> None:
    (root / f"{cid}.json").mkdir()
    (root / f"{cid}.json" / "messages.json").write_bytes(PLAIN)


def symlink_out(root: Path, cid: str) -> None:
    outside = root.parent / f"outside-{cid}.json"
    outside.write_bytes(session(cid, [user("secret")]))
    (root / f"{cid}.json").symlink_to(outside)


def fifo(root: Path, cid: str) -> None:
    os.mkfifo(root / f"{cid}.json")


LONG = "7" * 5000
"""An integer of more digits than Python converts to int (4,300): a number beyond the reference's own range."""
MILLION = "9" * 1_000_000


def with_number(number: str, field: str, where: str = "message") -> bytes:
    """A file whose user message (or the document, or the messages field) holds ``number`` unquoted in ``field``."""
    kept = b'{"role": "user", "content": "kept", "timestamp": "t"}'
    if where == "document":
        return b'{"%s": %s, "messages": [%s]}' % (field.encode(), number.encode(), kept)
    if where == "messages":
        return b'{"messages": %s}' % number.encode()
    other = {"role": b'"user"', "content": b'"x"', "timestamp": b'"t"'}
    other[field] = number.encode()
    members = b", ".join(b'"%s": %s' % (name.encode(), value) for name, value in other.items())
    return b'{"messages": [%s, {%s}]}' % (kept, members)


KEPT = item("kept")
"""The one user input left when the message holding the number is skipped (its role or content is no string)."""
NUMBER_CASES: dict[str, Case] = {
    "long-integer-in-role": Case(write(with_number(LONG, "role")), lambda cid: success(cid, [KEPT], False)),
    "long-integer-in-content": Case(write(with_number(LONG, "content")), lambda cid: success(cid, [KEPT], False)),
    "long-negative-integer-in-content": Case(
        write(with_number("-" + LONG, "content")), lambda cid: success(cid, [KEPT], False)
    ),
    "long-integer-in-timestamp": Case(
        write(with_number(LONG, "timestamp")), lambda cid: success(cid, [KEPT, item("x", created_at=None)], False)
    ),
    "long-integer-in-createdAt": Case(
        write(with_number(LONG, "createdAt")), lambda cid: success(cid, [KEPT, item("x")], False)
    ),
    "long-integer-in-id": Case(write(with_number(LONG, "id")), lambda cid: success(cid, [KEPT, item("x")], False)),
    "long-integer-in-a-field-not-read": Case(
        write(with_number(LONG, "tokens")), lambda cid: success(cid, [KEPT, item("x")], False)
    ),
    "long-integer-in-the-document": Case(
        write(with_number(LONG, "count", "document")), lambda cid: success(cid, [KEPT], False)
    ),
    "long-integer-as-messages": Case(
        write(with_number(LONG, "", "messages")), lambda cid: error("conversation_unreadable")
    ),
    "long-integer-beside-a-lone-surrogate": Case(  # a file only json.loads reads: the generic path
        write(b'{"n": %s, "messages": [{"role": "user", "content": "a\\udc00", "timestamp": "t"}]}' % LONG.encode()),
        lambda cid: success(cid, [item("a\udc00")], False),
    ),
    "million-digit-integer-in-content": Case(
        write(with_number(MILLION, "content")), lambda cid: success(cid, [KEPT], False)
    ),
    "million-digit-integer-in-id": Case(
        write(with_number(MILLION, "id")), lambda cid: success(cid, [KEPT, item("x")], False)
    ),
    "million-digit-integer-in-the-document": Case(
        write(with_number(MILLION, "count", "document")), lambda cid: success(cid, [KEPT], False)
    ),
    "1e400-in-id": Case(write(with_number("1e400", "id")), lambda cid: success(cid, [KEPT, item("x")], False)),
    "nan-in-id": Case(write(with_number("NaN", "id")), lambda cid: error("conversation_unreadable")),
    "minus-infinity-in-timestamp": Case(
        write(with_number("-Infinity", "timestamp")), lambda cid: error("conversation_unreadable")
    ),
    "duplicate-keys-the-last-counts": Case(
        write(b'{"messages": [{"role": "assistant", "role": "user", "content": "first", "content": "last"}]}'),
        lambda cid: success(cid, [item("last", created_at=None)], False),
    ),
}
"""D-8: numbers beyond the reference's range and the other hostile numbers and members: ok or unreadable, exactly."""

CASES: dict[str, Case] = {
    "50-mb-file": Case(
        fifty_megabytes,
        lambda cid: success(cid, [item(("input 499 " + "u" * 50_000)[:1000], "input 499 " + "u" * 50_000)], True),
    ),
    "1-mb-message": Case(
        write(session("x", [user("first"), user(BIG_CONTENT)])),
        lambda cid: success(cid, [item(BIG_CONTENT[:1000], BIG_CONTENT)], True),
    ),
    "100000-messages": Case(
        many_messages,
        lambda cid: success(cid, [item(f"message {n}") for n in range(MANY - 30, MANY, 2)], True),
    ),
    "deeply-nested-messages": Case(
        write(b'{"messages": ' + b"[" * DEEP + b"]" * DEEP + b"}"), lambda cid: error("conversation_unreadable")
    ),
    "deeply-nested-other-field": Case(
        write(b'{"extra": ' + b'{"a": ' * DEEP + b"1" + b"}" * DEEP + b', "messages": []}'),
        lambda cid: error("conversation_unreadable"),
    ),
    "nested-but-shallow-entries-are-skipped": Case(
        write(b'{"messages": [' + b"[" * 200 + b"]" * 200 + b', {"role": "user", "content": "ok", "timestamp": "t"}]}'),
        lambda cid: success(cid, [item("ok")], False),
    ),
    "lone-surrogates-escaped": Case(
        write(b'{"messages": [{"role": "user", "content": "a\\ud800b\\udfffc", "timestamp": "t"}]}'),
        lambda cid: success(cid, [item("a\ud800b\udfffc")], False),
    ),
    "lone-surrogate-as-raw-bytes": Case(
        write(b'{"messages": [{"role": "user", "content": "a\xed\xa0\x80b", "timestamp": "t"}]}'),
        lambda cid: error("conversation_unreadable"),
    ),
    "nul-escaped": Case(
        write(b'{"messages": [{"role": "user", "content": "a\\u0000b\\u0000", "timestamp": "t\\u0000"}]}'),
        lambda cid: success(cid, [item("a\x00b\x00", created_at="t\x00")], False),
    ),
    "nul-raw-inside-a-string": Case(
        write(b'{"messages": [{"role": "user", "content": "a\x00b", "timestamp": "t"}]}'),
        lambda cid: error("conversation_unreadable"),
    ),
    "invalid-utf-8": Case(
        write(b'{"messages": [{"role": "user", "content": "caf\xe9", "timestamp": "t"}]}'),
        lambda cid: error("conversation_unreadable"),
    ),
    "utf-8-bom": Case(
        write(b"\xef\xbb\xbf" + session("x", [user("with a BOM")])),
        lambda cid: success(cid, [item("with a BOM")], False),
    ),
    "utf-16-with-bom": Case(
        write(b"\xff\xfe" + session("x", [user("utf-16")]).decode().encode("utf-16-le")),
        lambda cid: error("conversation_unreadable"),
    ),
    "directory-named-id-json": Case(directory, lambda cid: error("conversation_not_found")),
    "symlink-out-of-the-folder": Case(symlink_out, lambda cid: error("conversation_not_found")),
    "fifo-named-id-json": Case(fifo, lambda cid: error("conversation_not_found")),
    **NUMBER_CASES,
}


# --- a running stdio server -------------------------------------------------------------


def start(sessions: Path, prefix: list[str] | None = None, stderr: IO[bytes] | None = None) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in {"CCWEB_SESSION_ID", "CC_WEB_SESSIONS_DIR"}}
    command = [*(prefix or []), sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", str(sessions)]
    errors = subprocess.DEVNULL if stderr is None else stderr
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env)


EXIT_BOUND_S = 60.0
"""How long a server may take to exit once its stdin closed: a guard, not a speed check (a test asserts the exit
code 0, and with the machine loaded 10 s was not enough: the server was killed, -9)."""


def stop(process: subprocess.Popen[bytes]) -> None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    try:
        process.wait(timeout=EXIT_BOUND_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    process.stdout.close()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile") / "sessions"
    root.mkdir()
    (root / "plain.json").write_bytes(PLAIN)
    return root


@pytest.fixture(scope="module")
def server(sessions: Path) -> Iterator[LineClient]:
    process = start(sessions)
    yield LineClient(process)
    stop(process)
    assert process.returncode == 0


def still_serving(client: LineClient) -> None:
    assert client.call({"conversationId": "plain"}) == success("plain", [item("still here", created_at="t0")], False)


def store_call(root: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    return without_message(*call_tool(SessionStore(root), arguments, None))


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_file(sessions: Path, server: LineClient, name: str) -> None:
    cid = f"hostile-{name}"
    case = CASES[name]
    case.make(sessions, cid)
    try:
        expected = case.expected(cid)
        assert store_call(sessions, {"conversationId": cid}) == expected
        assert server.call({"conversationId": cid}) == expected
        still_serving(server)
    finally:
        path = sessions / f"{cid}.json"
        if path.is_dir() and not path.is_symlink():
            (path / "messages.json").unlink()
            path.rmdir()
        else:
            path.unlink()


def test_numbers_beyond_range_leave_no_traceback(sessions: Path, tmp_path: Path) -> None:
    """D-8: every number case is a tool result over stdio, never a JSON-RPC error, and nothing lands on stderr."""
    for name, case in NUMBER_CASES.items():
        case.make(sessions, f"number-{name}")
    with (tmp_path / "stderr").open("wb") as stderr:
        process = start(sessions, stderr=stderr)
        try:
            client = LineClient(process)
            replies = [client.request("tools/call", {"name": TOOL, "arguments": {"conversationId": f"number-{name}"}})
                       for name in NUMBER_CASES]  # fmt: skip
            still_serving(client)
        finally:
            stop(process)
            for name in NUMBER_CASES:
                (sessions / f"number-{name}.json").unlink()
    assert (tmp_path / "stderr").read_text(encoding="utf-8", errors="replace") == ""
    assert [reply.get("error") for reply in replies] == [None] * len(NUMBER_CASES)
    answers = [without_message(r["result"]["structuredContent"], r["result"].get("isError", False)) for r in replies]
    assert answers == [case.expected(f"number-{name}") for name, case in NUMBER_CASES.items()]
    assert process.returncode == 0


# --- a file without read permission ----------------------------------------------------------


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_DAC_CAPABILITIES = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


@contextmanager
def file_permissions_enforced() -> Iterator[None]:
    """As in test_store.py: drop the two DAC capabilities from this thread's effective set."""
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    assert libc.capget(ctypes.byref(header), data) == 0
    saved = data[0].effective
    data[0].effective = saved & ~_DAC_CAPABILITIES
    assert libc.capset(ctypes.byref(header), data) == 0
    try:
        yield
    finally:
        data[0].effective = saved
        assert libc.capset(ctypes.byref(header), data) == 0


# The same for a server process: setpriv starts it without the two capabilities (root only).
NO_DAC = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"]


def test_file_without_read_permission(sessions: Path, server: LineClient) -> None:
    path = sessions / "locked.json"
    path.write_bytes(session("locked", [user("locked away")]))
    path.chmod(0)
    process = start(sessions, NO_DAC if os.geteuid() == 0 else None)
    try:
        with file_permissions_enforced():
            with pytest.raises(PermissionError):  # the setup is real: the kernel refuses the read
                path.read_bytes()
            assert store_call(sessions, {"conversationId": "locked"}) == error("conversation_unreadable")
        unprivileged = LineClient(process)
        assert unprivileged.call({"conversationId": "locked"}) == error("conversation_unreadable")
        still_serving(unprivileged)
    finally:
        stop(process)
        path.chmod(0o644)
        path.unlink()
    assert process.returncode == 0


# --- a file rewritten while it is read ----------------------------------------------------------


def test_file_rewritten_while_read(sessions: Path, server: LineClient) -> None:
    cid = "churn"
    path = sessions / f"{cid}.json"
    versions = [session(cid, [user(f"version {v} " + str(v) * 300_000)]) for v in (1, 2)]
    results = [success(cid, [item(f"version {v} " + str(v) * 990, f"version {v} " + str(v) * 300_000)], True)
               for v in (1, 2)]  # fmt: skip
    path.write_bytes(versions[0])
    stop_writing = threading.Event()

    def rewrite() -> None:
        n = 0
        while not stop_writing.is_set():
            n += 1
            with path.open("wb") as handle:  # truncate, then write in pieces: readers see partial files
                data = versions[n % 2]
                for start in range(0, len(data), 65536):
                    handle.write(data[start : start + 65536])
                    handle.flush()
            stop_writing.wait(0.003)  # let some reads find a whole version

    writer = threading.Thread(target=rewrite)
    writer.start()
    answers: list[dict[str, Any]] = []
    try:
        for _ in range(60):
            answers.append(store_call(sessions, {"conversationId": cid}))
            answers.append(server.call({"conversationId": cid}))
    finally:
        stop_writing.set()
        writer.join()
    allowed = [*results, error("conversation_unreadable")]
    assert [a for a in answers if a not in allowed] == []
    path.write_bytes(versions[1])
    assert server.call({"conversationId": cid}) == results[1]
    still_serving(server)
    path.unlink()


# --- nesting near the parser's limit: the same answer in-process, over stdio and over HTTP ------

MODERN_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": TOOL,
}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}
DEPTHS = [500, 900, 960, 970, 980, 985, 990, 995, 1000, 5000]


def http_call(url: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"_meta": MODERN_META, "name": TOOL, "arguments": arguments}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    reply = httpx.post(url, json=body, headers=MODERN_HEADERS, timeout=TIMEOUT, trust_env=False)
    assert reply.status_code == 200
    result = reply.json()["result"]
    return without_message(result["structuredContent"], result.get("isError", False))


def test_nesting_limit_does_not_depend_on_the_transport(
    sessions: Path, server: LineClient, start_server: StartServer
) -> None:
    # REG-1: a file's result may not depend on how deep the caller's stack happens to be
    for depth in DEPTHS:
        nested = b"[" * depth + b"]" * depth
        (sessions / f"depth-{depth}.json").write_bytes(
            b'{"messages": [' + nested + b', {"role": "user", "content": "ok", "timestamp": "t"}]}'
        )
    _, url = start_server(sessions, http=True)
    assert url is not None
    answers = {
        "store": [store_call(sessions, {"conversationId": f"depth-{d}"}) for d in DEPTHS],
        "stdio": [server.call({"conversationId": f"depth-{d}"}) for d in DEPTHS],
        "http": [http_call(url, {"conversationId": f"depth-{d}"}) for d in DEPTHS],
    }
    assert answers["stdio"] == answers["store"]
    assert answers["http"] == answers["store"]
    assert answers["store"][:2] == [success(f"depth-{d}", [item("ok")], False) for d in DEPTHS[:2]]
    assert answers["store"][-1] == error("conversation_unreadable")
    for depth in DEPTHS:
        (sessions / f"depth-{depth}.json").unlink()
    still_serving(server)
