"""profile/check.py alone: each profiled call judged by the oracle's one comparison, at most a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.oracle import Expected
from ccweb_conformance.profile.check import MAX_DIFFERENCES, Oracle, arguments, differences
from ccweb_conformance.transport.exchange import Exchange


def reply(result: dict[str, Any], *, is_error: bool = False) -> Exchange:
    body = {"structuredContent": result, "content": [{"type": "text", "text": json.dumps(result)}], "isError": is_error}
    return Exchange({"id": 1}, {"jsonrpc": "2.0", "id": 1, "result": body})


def test_a_right_answer_has_no_difference_and_a_wrong_one_says_where() -> None:
    expected = Expected({"ok": True, "totalChars": 3}, False)
    assert differences(reply({"ok": True, "totalChars": 3, "extra": 1}), expected) == []
    assert differences(reply({"ok": True, "totalChars": 4}, is_error=True), expected) == [
        "isError: expected false, got true",
        "$.totalChars: expected 3, got 4",
    ]


def test_at_most_a_few_differences_then_how_many_more() -> None:
    expected = Expected({f"k{n}": n for n in range(8)}, False)
    found = differences(reply({}), expected)
    assert found == [*(f"$.k{n}: missing" for n in range(MAX_DIFFERENCES)), "... and 3 more differences"]


def test_a_reply_without_a_result_object_is_its_first_line() -> None:
    exchange = Exchange({"id": 1}, None)
    assert differences(exchange, Expected({"ok": True}, False)) == ["no reply to tools/call"]


def test_the_oracle_remembers_an_answer_per_revision_until_told_to_forget(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}), encoding="utf-8")
    oracle = Oracle(tmp_path)
    first = oracle.expected("c", 1)
    assert (first.is_error, first.result["totalChars"], first.result["conversationId"]) == (False, 2, "c")
    (tmp_path / "c.json").write_text(json.dumps({"messages": []}), encoding="utf-8")
    assert oracle.expected("c", 1) is first  # same revision: remembered, the file is not read again
    assert oracle.expected("c", 2).result["totalChars"] == 0
    oracle.forget()
    assert oracle.expected("c", 1).result["totalChars"] == 0
    assert arguments("c") == {"conversationId": "c"}
