"""Strict JSON (D-16) as the runner reads it: every problem named, the value still JSON, depth bounded."""

from __future__ import annotations

import json

import pytest

from ccweb_conformance.jsontext import MAX_DEPTH, TooDeep, decode_utf8, read_json
from ccweb_conformance.transport.channel import Reply, parse_received
from ccweb_conformance.transport.sse import SseEvent, StreamState, iter_events, split_lines
from ccweb_conformance.transport.validate import message_violations

DUPLICATE = "RFC 8259 wants names unique, and readers differ on which value wins: this one keeps the last"


def test_constants_are_named_and_read_as_strings() -> None:
    received = read_json('{"a": NaN, "b": [Infinity, -Infinity]}')
    assert received.value == {"a": "NaN", "b": ["Infinity", "-Infinity"]}
    assert received.problems == [
        'NaN is not a JSON value (RFC 8259), read as the string "NaN"',
        'Infinity is not a JSON value (RFC 8259), read as the string "Infinity"',
        '-Infinity is not a JSON value (RFC 8259), read as the string "-Infinity"',
    ]


def test_duplicate_member_names_are_named_at_any_depth() -> None:
    received = read_json('{"id": 1, "result": {"items": [], "ok": true, "items": [1]}, "id": 2}')
    assert received.value == {"id": 2, "result": {"items": [1], "ok": True}}
    assert received.problems == [
        f'duplicate member name "items" in one object ({DUPLICATE})',
        f'duplicate member name "id" in one object ({DUPLICATE})',
    ]


def test_strict_json_has_no_problem_and_keeps_lone_surrogate_escapes() -> None:
    received = read_json('{"a": "\\ud800", "b": [1.5, -0, 1e400, null, true]}')
    assert received.problems == []
    assert received.value["a"] == "\ud800"


def test_not_json_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Expecting"):
        read_json("{not json")


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 900, 10_000])
def test_too_deep_is_one_clear_error(depth: int) -> None:
    with pytest.raises(TooDeep) as caught:
        read_json("[" * depth + "]" * depth)
    assert (
        str(caught.value) == "JSON nested deeper than 200 levels, the most the runner reads (RFC 8259 allows the limit)"
    )


def test_the_deepest_value_read() -> None:
    text = '{"a":' * (MAX_DEPTH - 1) + "[]" + "}" * (MAX_DEPTH - 1)
    assert read_json(text).problems == []
    wide = "[" + ",".join(["[{}]"] * 500) + "]"  # many brackets, two levels deep
    assert read_json(wide).value == [[{}]] * 500


def test_invalid_utf8_is_named_with_its_bytes() -> None:
    assert decode_utf8("café".encode(), "the HTTP body") == ("café", None)
    assert decode_utf8(b"caf\xe9!", "the HTTP body") == (
        "caf\ufffd!",
        "the HTTP body is not valid UTF-8 (bytes e9 at offset 3)",
    )


def test_parse_received_notes_problems_in_the_reply() -> None:
    reply = Reply()
    assert parse_received('{"a": NaN}', reply, "a line received") == {"a": "NaN"}
    assert reply.decode_problems == ['a line received: NaN is not a JSON value (RFC 8259), read as the string "NaN"']


def test_an_sse_line_that_is_not_utf8_is_told() -> None:
    problems: list[str] = []
    assert list(split_lines([b"data: caf\xe9\n", b"data: ok\n"], problem=problems.append)) == [
        "data: caf\ufffd",
        "data: ok",
    ]
    assert problems == ["an SSE line is not valid UTF-8 (bytes e9 at offset 9)"]


def test_the_stream_state_follows_ids_and_retry_even_without_data() -> None:
    state = StreamState()
    events = list(iter_events(["id: prime-1", "retry: 250", "", "retry: soon", ""], state=state))
    assert events == []
    assert (state.last_id, state.retry_ms) == ("prime-1", 250)
    resumed = list(iter_events(['data: {"x": 1}', "", "id: 2", "data: y", ""], state=state))
    assert resumed == [SseEvent("message", '{"x": 1}', "prime-1"), SseEvent("message", "y", "2")]
    assert state.last_id == "2"


def _call_result(text: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}], "isError": False}}


def test_a_json_text_block_must_be_strict_json() -> None:
    duplicated = '{"ok": false, "ok": true, "items": []}'
    assert message_violations(_call_result(duplicated), version="2025-11-25", method="tools/call") == [
        "tools/call result: content.0.text: the JSON text breaks RFC 8259: "
        f'duplicate member name "ok" in one object ({DUPLICATE})'
    ]
    assert message_violations(_call_result('{"n": NaN}'), version="2025-11-25", method="tools/call") == [
        "tools/call result: content.0.text: the JSON text breaks RFC 8259: "
        'NaN is not a JSON value (RFC 8259), read as the string "NaN"'
    ]


@pytest.mark.parametrize("text", ['{"ok": true}', "{ not json", "plain words", "[1, 2]"])
def test_other_text_blocks_are_left_alone(text: str) -> None:
    assert message_violations(_call_result(text), version="2025-11-25", method="tools/call") == []


def test_a_too_deep_text_block_is_a_violation() -> None:
    deep = "[" * 300 + "]" * 300
    assert message_violations(_call_result(deep), version="2025-11-25", method="tools/call") == [
        "tools/call result: content.0.text: the JSON text breaks RFC 8259: "
        "JSON nested deeper than 200 levels, the most the runner reads (RFC 8259 allows the limit)"
    ]


def test_the_reply_keeps_a_bounded_number_of_problems() -> None:
    reply = Reply()
    for number in range(100):
        reply.add_problem(f"problem {number}")
    assert reply.decode_problems == [f"problem {number}" for number in range(20)]
    assert json.dumps(reply.decode_problems)
