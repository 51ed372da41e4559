"""The simdjson reading (``ccweb_reference.simd``) answers exactly as ``json.loads`` does, or steps aside."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ccweb_reference import simd
from ccweb_reference.decode import READ_FIELDS, _slow_message, generic_document
from ccweb_reference.simd import simd_messages


def _projected(message: Any) -> Any:
    if not isinstance(message, dict):
        return None
    return {name: message[name] for name in READ_FIELDS if name in message}


def _json_loads_messages(data: bytes) -> list[Any]:
    return [_projected(m) for m in generic_document(data).get("messages") or []]


def _read(data: bytes) -> Any:
    return simd_messages(data, READ_FIELDS, _slow_message)


AGREES = {
    "mixed-entries": (
        b'{"id": "m", "messages": [1, "text", null, [1, {"role": "user"}], true, 2.5,'
        b' {"role": "user", "content": "a", "toolCalls": [{"input": {"deep": [[[]]]}}]},'
        b' {"role": "user", "content": "c", "id": 18446744073709551615, "createdAt": -0, "timestamp": 1.5e308},'
        b' {"role": "user", "content": "\\u00e9\\ud83d\\ude00 \xe7\x94\xa8 \\u0000\\"", "timestamp": null},'
        b' {}, {"content": {"nested": ["x", {"y": null}]}, "role": ["user"], "id": {"a": 1, "a": 2}}]}'
    ),
    "duplicate-fields-in-a-message": (
        b'{"messages": [{"role": "assistant", "role": "user", "content": "first", "content": "last"}]}'
    ),
    "escaped-field-names": b'{"messages": [{"rol\\u0065": "user", "cont\\u0065nt": "escaped"}]}',
    "null-messages": b'{"messages": null}',
    "no-messages": b'{"title": "t"}',
    "json-whitespace": b' \t\r\n{"messages": [ {"role" : "user" , "content" : "x"} ] } \n',
}


@pytest.mark.parametrize("data", AGREES.values(), ids=AGREES.keys())
def test_simdjson_answers_and_agrees_with_json_loads(data: bytes) -> None:
    fast = _read(data)
    assert fast is not None
    assert list(fast) == _json_loads_messages(data)
    assert [fast[i] for i in range(len(fast) - 1, -1, -1)] == _json_loads_messages(data)[::-1]
    assert fast[-1:] == _json_loads_messages(data)[-1:]


def test_the_exact_values_of_a_message() -> None:
    fast = _read(AGREES["mixed-entries"])
    assert fast is not None
    assert fast[7] == {"role": "user", "content": "c", "id": 18446744073709551615, "createdAt": 0, "timestamp": 1.5e308}
    assert fast[8] == {"role": "user", "content": '\u00e9\U0001f600 \u7528 \x00"', "timestamp": None}
    assert fast[10] == {"content": {"nested": ["x", {"y": None}]}, "role": ["user"], "id": {"a": 2}}
    assert _read(AGREES["duplicate-fields-in-a-message"])[0] == {"role": "user", "content": "last"}  # type: ignore[index]


STEPS_ASIDE = {
    "lone-surrogate": b'{"messages": [{"role": "user", "content": "x\\ud800"}]}',
    "reversed-surrogates": b'{"messages": [{"role": "user", "content": "\\udc00\\ud800"}]}',
    "invalid-utf8": b'{"messages": [{"role": "user", "content": "\xff"}]}',
    "utf8-encoded-surrogate": b'{"messages": [{"role": "user", "content": "\xed\xa0\x80"}]}',
    "integer-beyond-64-bits": b'{"messages": [{"role": "user", "content": "b", "id": 123456789012345678901234567890}]}',
    "number-beyond-double": b'{"messages": [{"role": "user", "content": "c", "id": 1e400}]}',
    "second-bom": b'\xef\xbb\xbf{"messages": []}',
    "duplicate-messages": b'{"messages": null, "messages": [{"role": "user", "content": "x"}]}',
    "messages-object": b'{"messages": {"role": "user"}}',
    "not-an-object": b"[]",
    "nan": b'{"messages": [NaN]}',
    "trailing-text": b'{"messages": []} x',
    "control-character": b'{"messages": [{"role": "user", "content": "\x01"}]}',
    "too-deep": b'{"messages": [' + b"[" * 1100 + b"]" * 1100 + b"]}",
    "empty": b"",
}


@pytest.mark.parametrize("data", STEPS_ASIDE.values(), ids=STEPS_ASIDE.keys())
def test_simdjson_steps_aside(data: bytes) -> None:
    assert _read(data) is None


def test_a_parser_still_in_use_is_not_reused() -> None:
    first = _read(b'{"messages": [{"role": "user", "content": "one"}]}')
    second = _read(b'{"messages": [{"role": "user", "content": "two"}]}')
    assert first is not None and second is not None
    assert (first[0], second[0]) == ({"role": "user", "content": "one"}, {"role": "user", "content": "two"})


def test_the_parser_is_released_after_an_idle_time(monkeypatch: pytest.MonkeyPatch) -> None:
    parsers = simd._Parsers()
    monkeypatch.setattr(simd, "RELEASE_AFTER_S", 0.05)
    root = parsers.parse(b"{}")
    assert parsers._parser is not None and json.loads(b"{}") == root.as_dict()
    del root
    timer = parsers._timer
    assert timer is not None
    timer.join(2.0)
    assert parsers._parser is None and parsers._timer is None
