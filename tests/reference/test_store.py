"""The read-only store and one whole tool call against real files (D-6, D-7, D-8)."""

from __future__ import annotations

import ctypes
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from line_client import without_message

from ccweb_reference.store import SessionStore, clean_id, parse_conversation
from ccweb_reference.tool import call_tool

HI = b'{"id": "x", "title": "t", "hasUnread": true, "messages": [{"role": "user", "content": "hi", "timestamp": "t1"}]}'


def hi(conversation_id: str) -> dict[str, Any]:
    """The exact result of reading a file holding HI under ``conversation_id``."""
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": 15,
        "maxChars": 1000,
        "totalChars": 2,
        "returnedCount": 1,
        "hasMore": False,
        "items": [
            {
                "messageId": None,
                "createdAt": "t1",
                "content": "hi",
                "contentChars": 2,
                "originalChars": 2,
                "truncated": False,
            }
        ],
    }


def empty(conversation_id: str) -> dict[str, Any]:
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": 15,
        "maxChars": 1000,
        "totalChars": 0,
        "returnedCount": 0,
        "hasMore": False,
        "items": [],
    }


def error(code: str, field: str | None = None) -> dict[str, Any]:
    """An error object without its free-text message (checked separately)."""
    return {"ok": False, "error": {"code": code} | ({"field": field} if field else {})}


def call(store: SessionStore, arguments: dict[str, Any] | None, source: str | None = None) -> dict[str, Any]:
    """One tool call; an error's message is checked to be non-empty text and dropped."""
    return without_message(*call_tool(store, arguments, source))


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    root.mkdir()
    (root / "x.json").write_bytes(HI)
    (root / "abc.json").write_bytes(HI)
    return root


@pytest.fixture
def store(sessions: Path) -> SessionStore:
    return SessionStore(sessions)


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("../x", "x"),
        ("  ", ""),
        ("abc!", "abc"),
        ("", ""),
        ("3f1c9a2e-7b4d-4e8a-9c1f-2d6b8e0a4f13", "3f1c9a2e-7b4d-4e8a-9c1f-2d6b8e0a4f13"),
        ("a_b.c/d\\e:f g", "abcdefg"),
        ("é中Ａ１", ""),
        ("x\x00y\ny", "xyy"),
    ],
)
def test_clean_id(raw: str, cleaned: str) -> None:
    assert clean_id(raw) == cleaned


@pytest.mark.parametrize(
    ("arguments", "source", "expected"),
    [
        ({"conversationId": "../x"}, None, hi("x")),
        ({"conversationId": "abc!"}, None, hi("abc")),
        ({"conversationId": "  "}, "x", error("invalid_conversation_id")),
        ({"conversationId": ""}, "x", error("invalid_conversation_id")),
        ({"conversationId": "../!!"}, "x", error("invalid_conversation_id")),
        ({"conversationId": "a" * 10_000}, None, error("conversation_not_found")),
        ({"conversationId": "a" * 251}, None, error("conversation_not_found")),  # 256 bytes with ".json"
        ({"conversationId": "nope"}, "x", error("conversation_not_found")),
        ({"conversationId": "abc"}, "x", hi("abc")),
        ({}, "x", hi("x")),
        (None, "../x!", hi("x")),
        ({}, None, error("missing_source_conversation")),
        ({}, "", error("missing_source_conversation")),
        ({}, "../!!", error("missing_source_conversation")),
        ({}, "nope", error("conversation_not_found")),
        ({"limit": 0, "conversationId": "!!"}, None, error("invalid_arguments", "limit")),
        ({"limit": 0}, None, error("invalid_arguments", "limit")),
        ({"conversationId": "nope", "maxChars": 1001}, None, error("invalid_arguments", "maxChars")),
        ({"conversationId": "x", "limit": 15.0}, None, hi("x")),
    ],
)
def test_conversation_ids_and_check_order(
    store: SessionStore, arguments: dict[str, Any] | None, source: str | None, expected: dict[str, Any]
) -> None:
    assert call(store, arguments, source) == expected


def test_symlink_inside_is_followed(store: SessionStore, sessions: Path) -> None:
    (sessions / "sub").mkdir()
    (sessions / "sub" / "target.json").write_bytes(HI)
    (sessions / "link.json").symlink_to("x.json")
    (sessions / "deep.json").symlink_to(sessions / "sub" / "target.json")
    assert call(store, {"conversationId": "link"}) == hi("link")
    assert call(store, {"conversationId": "deep"}) == hi("deep")


def test_symlinked_sessions_dir_is_resolved(sessions: Path, tmp_path: Path) -> None:
    (tmp_path / "alias").symlink_to(sessions)
    assert call(SessionStore(tmp_path / "alias"), {"conversationId": "x"}) == hi("x")


def one_input(conversation_id: str, content: str) -> bytes:
    return json.dumps({"id": conversation_id, "messages": [{"role": "user", "content": content}]}).encode()


def repoint(link: Path, target: Path) -> None:
    """Point ``link`` at ``target`` atomically, as a deploy swaps a ``current`` link (a new link renamed over it)."""
    fresh = link.with_name(f"{link.name}.new")
    fresh.symlink_to(target)
    os.replace(fresh, link)


def test_a_symlinked_sessions_dir_is_followed_as_it_is_repointed(tmp_path: Path) -> None:
    """The link is resolved on every call, not once: after a repoint the next call reads the new folder."""
    first, second = tmp_path / "release-1", tmp_path / "release-2"
    for folder, content in ((first, "from release 1"), (second, "from release 2")):
        folder.mkdir()
        (folder / "c.json").write_bytes(one_input("c", content))
    (second / "only2.json").write_bytes(HI)
    current = tmp_path / "current"
    current.symlink_to(first)
    store = SessionStore(current)
    assert call(store, {"conversationId": "c"})["items"][0]["content"] == "from release 1"
    assert call(store, {"conversationId": "only2"}) == error("conversation_not_found")
    repoint(current, second)
    assert call(store, {"conversationId": "c"})["items"][0]["content"] == "from release 2"
    assert call(store, {"conversationId": "only2"}) == hi("only2")
    repoint(current, tmp_path / "gone")  # dangling: no conversation, no error of the server's own
    assert call(store, {"conversationId": "c"}) == error("conversation_not_found")


@pytest.mark.parametrize("kind", ["outside", "dangling", "directory", "link-to-directory", "loop", "fifo"])
def test_not_a_regular_file_inside_is_not_found(store: SessionStore, sessions: Path, tmp_path: Path, kind: str) -> None:
    path = sessions / "t.json"
    if kind == "outside":
        (tmp_path / "secret.json").write_bytes(HI)
        path.symlink_to(tmp_path / "secret.json")
    elif kind == "dangling":
        path.symlink_to(sessions / "missing.json")
    elif kind == "directory":
        path.mkdir()
    elif kind == "link-to-directory":
        (sessions / "sub").mkdir()
        path.symlink_to(sessions / "sub")
    elif kind == "loop":
        path.symlink_to("t.json")
    else:
        os.mkfifo(path)
    assert call(store, {"conversationId": "t"}) == error("conversation_not_found")


def test_sessions_dir_itself_via_link_is_not_found(store: SessionStore, sessions: Path) -> None:
    (sessions / "self.json").symlink_to(sessions)
    assert call(store, {"conversationId": "self"}) == error("conversation_not_found")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"{", id="truncated"),
        pytest.param(b"", id="empty-file"),
        pytest.param(b'{"messages": []} trailing', id="trailing-garbage"),
        pytest.param(b'{"id": "\xff\xfe", "messages": []}', id="invalid-utf8"),
        pytest.param('{"messages": []}'.encode("utf-16"), id="utf16"),
        pytest.param(b"[]", id="array"),
        pytest.param(b'"text"', id="string"),
        pytest.param(b"null", id="null"),
        pytest.param(b"42", id="number"),
        pytest.param(b'{"messages": [], "n": NaN}', id="nan"),
        pytest.param(b'{"messages": [], "n": -Infinity}', id="infinity"),
        pytest.param(b"[" * 100_000, id="deep-array"),
        pytest.param(b'{"messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", id="deep-messages"),
        pytest.param(b'{"a":' * 100_000 + b"1" + b"}" * 100_000, id="deep-object"),
        pytest.param(b'{"messages": "hi"}', id="messages-string"),
        pytest.param(b'{"messages": {"0": {"role": "user", "content": "x"}}}', id="messages-object"),
        pytest.param(b'{"messages": 3}', id="messages-number"),
        pytest.param(b'{"messages": false}', id="messages-false"),
    ],
)
def test_unusable_file_is_unreadable(store: SessionStore, sessions: Path, data: bytes) -> None:
    (sessions / "u.json").write_bytes(data)
    assert call(store, {"conversationId": "u"}) == error("conversation_unreadable")


@pytest.mark.parametrize(
    "data", [b'{"id": "e"}', b'{"id": "e", "messages": null}', b'{"messages": []}', b"{}"], ids=str
)
def test_absent_or_null_messages_mean_none(store: SessionStore, sessions: Path, data: bytes) -> None:
    (sessions / "e.json").write_bytes(data)
    assert call(store, {"conversationId": "e"}) == empty("e")


def test_leading_bom_is_ignored(store: SessionStore, sessions: Path) -> None:
    (sessions / "bom.json").write_bytes(b"\xef\xbb\xbf" + HI)
    assert call(store, {"conversationId": "bom"}) == hi("bom")


def test_pretty_printed_file_with_unknown_fields(store: SessionStore, sessions: Path) -> None:
    (sessions / "p.json").write_text(
        '{\n  "id": "p",\n  "agent": "codex",\n  "extra": {"nested": [1, 2]},\n  "messages": [\n'
        '    {"role": "user", "content": "hi", "timestamp": "t1", "attachments": [{"name": "a.png"}]}\n  ]\n}\n',
        encoding="utf-8",
    )
    assert call(store, {"conversationId": "p"}) == hi("p")


def test_lone_surrogate_escape_is_read_intact() -> None:
    assert parse_conversation(b'{"messages": [{"role": "user", "content": "x\\ud800y"}]}') == [
        {"role": "user", "content": "x\ud800y"}
    ]


def test_a_change_is_visible_in_the_next_call(store: SessionStore, sessions: Path) -> None:
    assert call(store, {"conversationId": "x"}) == hi("x")
    (sessions / "x.json").write_bytes(b'{"messages": []}')
    assert call(store, {"conversationId": "x"}) == empty("x")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_CAPABILITY_VERSION_3 = 0x20080522
_DAC_CAPABILITIES = (1 << 1) | (1 << 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


@contextmanager
def file_permissions_enforced() -> Iterator[None]:
    """Make the kernel enforce file modes for this thread, even as root.

    As root, reads ignore permission bits because of CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH. Capabilities are per thread on Linux: this drops the two from
    the calling thread's effective set (keeping them permitted) and restores them after.
    """
    if os.geteuid() != 0:
        yield
        return
    libc = ctypes.CDLL(None, use_errno=True)
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    saved = data[0].effective
    data[0].effective = saved & ~_DAC_CAPABILITIES
    if libc.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")
    try:
        yield
    finally:
        data[0].effective = saved
        assert libc.capset(ctypes.byref(header), data) == 0


def test_file_without_read_permission_is_unreadable(store: SessionStore, sessions: Path) -> None:
    path = sessions / "x.json"
    path.chmod(0)
    try:
        with file_permissions_enforced():
            with pytest.raises(PermissionError):  # the setup is real: the kernel refuses the read
                path.read_bytes()
            result = call(store, {"conversationId": "x"})
    finally:
        path.chmod(0o644)
    assert result == error("conversation_unreadable")
    assert path.read_bytes() == HI


def test_error_messages_quote_a_huge_id_only_in_part(tmp_path):
    """A 10 MB conversationId does not come back as a 10 MB message."""
    huge = "a" * 10_000_000
    result, is_error = call_tool(SessionStore(tmp_path), {"conversationId": huge}, None)
    assert (is_error, result["error"]["code"]) == (True, "conversation_not_found")
    assert (
        result["error"]["message"] == f"no conversation '{'a' * 80}... (10000000 characters)' in the sessions directory"
    )
