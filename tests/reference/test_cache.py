"""The reference's result cache: repeated calls skip reading an unchanged file, a changed file never hits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ccweb_reference import cache
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool


def write(path: Path, contents: list[str]) -> None:
    messages = [{"role": "user", "content": c, "timestamp": None} for c in contents]
    path.write_text(json.dumps({"id": path.stem, "messages": messages}), encoding="utf-8")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[SessionStore, list[str]]:
    """A store whose file reads are counted."""
    reads: list[str] = []
    original = SessionStore.read_messages

    def read_messages(self: SessionStore, conversation_id: str) -> list:
        reads.append(conversation_id)
        return original(self, conversation_id)

    monkeypatch.setattr(SessionStore, "read_messages", read_messages)
    return SessionStore(tmp_path), reads


def contents(result: dict) -> list[str]:
    return [item["content"] for item in result["items"]]


def test_a_fresh_file_is_read_on_every_call(counted, tmp_path):
    store, reads = counted
    write(tmp_path / "c.json", ["one"])
    for _ in range(3):
        assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["one"]
    assert reads == ["c", "c", "c"]


def test_a_settled_unchanged_file_is_read_once(counted, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLE_NS", -(10**12))  # every file counts as settled
    store, reads = counted
    write(tmp_path / "c.json", ["one"])
    results = [call_tool(store, {"conversationId": "c"}, None) for _ in range(3)]
    assert [contents(r) for r, _ in results] == [["one"]] * 3
    assert reads == ["c"]
    assert call_tool(store, {"conversationId": "c", "limit": 1}, None)[0]["requestedLimit"] == 1
    assert reads == ["c", "c"]  # other arguments are another entry


def test_a_changed_file_never_hits(counted, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLE_NS", -(10**12))
    store, reads = counted
    path = tmp_path / "c.json"
    write(path, ["aaaa"])
    assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["aaaa"]
    before = os.stat(path)
    write(path, ["bbbb"])  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime: only ctime moves
    assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["bbbb"]
    write(path, ["bbbb", "cc"])
    assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["bbbb", "cc"]
    assert reads == ["c", "c", "c"]


def test_a_cached_result_is_a_copy(counted, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLE_NS", -(10**12))
    store, _ = counted
    write(tmp_path / "c.json", ["one"])
    first, _ = call_tool(store, {"conversationId": "c"}, None)
    first["items"].clear()
    assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["one"]


def test_errors_are_not_cached(counted, tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "SETTLE_NS", -(10**12))
    store, _ = counted
    assert call_tool(store, {"conversationId": "c"}, None)[0]["error"]["code"] == "conversation_not_found"
    write(tmp_path / "c.json", ["now here"])
    assert contents(call_tool(store, {"conversationId": "c"}, None)[0]) == ["now here"]


def test_settled_needs_both_times_older_than_the_window():
    second = 1_000_000_000
    assert cache.settled((0, 0, 0, 10 * second, 10 * second), now_ns=13 * second) is True
    assert cache.settled((0, 0, 0, 10 * second, 11 * second), now_ns=13 * second) is False
    assert cache.settled((0, 0, 0, 12 * second, 1 * second), now_ns=13 * second) is False


def test_the_cache_keeps_the_most_recently_used_entries():
    results = cache.ResultCache(capacity=2)
    for name in ("a", "b"):
        results.put((name,), {"n": name})
    assert results.get(("a",)) == {"n": "a"}  # a is now the most recent
    results.put(("c",), {"n": "c"})
    assert (results.get(("a",)), results.get(("b",)), results.get(("c",))) == ({"n": "a"}, None, {"n": "c"})
