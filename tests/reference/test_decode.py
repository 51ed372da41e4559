"""The reference's lazy fast path (``ccweb_reference.decode``) agrees with ``json.loads``."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

import pytest

from ccweb_reference import decode
from ccweb_reference.core import ToolError
from ccweb_reference.decode import (
    _VALIDATION_CHUNK,
    LONGEST_INTEGER,
    READ_FIELDS,
    LongInteger,
    generic_document,
    typed_messages,
)


def _projected(message: Any) -> Any:
    """What the core can see of one generically decoded message."""
    if not isinstance(message, dict):
        return None  # the core skips it: the fast path does not decode it
    return {name: message[name] for name in READ_FIELDS if name in message}


def _generic_messages(data: bytes) -> list[Any]:
    return [_projected(m) for m in generic_document(data).get("messages") or []]


MIXED = (
    b'{"id": "m", "messages": [1, "text", null, [1, {"role": "user"}], true, 2.5,'
    b' {"role": "user", "content": "a", "toolCalls": [{"input": {"deep": [[[]]]}}]},'
    b' {"role": "user", "content": "b", "id": 123456789012345678901234567890},'
    b' {"role": "user", "content": "c", "id": 1e400, "createdAt": -0},'
    b' {"role": "assistant", "role": "user", "content": "first", "content": "last"},'
    b' {"role": "user", "content": "\\u00e9\\ud83d\\ude00 \xe7\x94\xa8", "timestamp": null},'
    b' {}, {"content": {"nested": "x"}, "role": ["user"]}]}'
)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(MIXED, id="mixed-entries"),
        pytest.param(b'{"messages": []}', id="empty"),
        pytest.param(b'{"messages": null, "messages": [{"role": "user", "content": "x"}]}', id="duplicate-messages"),
        pytest.param(b"{}", id="no-messages"),
    ],
)
def test_fast_path_answers_and_agrees_with_json_loads(data: bytes) -> None:
    fast = typed_messages(data)
    assert fast is not None
    assert list(fast) == _generic_messages(data)
    assert fast[-2:] == _generic_messages(data)[-2:]


def test_each_entry_is_decoded_as_json_loads_would() -> None:
    fast = typed_messages(MIXED)
    assert fast is not None
    assert [fast[i] for i in (0, 1, 2, 3, 4, 5)] == [None] * 6
    assert fast[7] == {"role": "user", "content": "b", "id": 123456789012345678901234567890}
    assert fast[8] == {"role": "user", "content": "c", "id": float("inf"), "createdAt": 0}
    assert fast[9] == {"role": "user", "content": "last"}
    assert fast[10] == {"role": "user", "content": "\u00e9\U0001f600 \u7528", "timestamp": None}


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b'{"messages": [{"role": "user", "content": "x\\ud800"}]}', id="lone-surrogate"),
        pytest.param(b'{"messages": [{"role": "user", "content": "\xff"}]}', id="invalid-utf8"),
        pytest.param(b'{"messages": {"role": "user"}}', id="messages-object"),
        pytest.param(b"[]", id="not-an-object"),
        pytest.param(b'{"messages": [NaN]}', id="nan"),
    ],
)
def test_fast_path_steps_aside(data: bytes) -> None:
    assert typed_messages(data) is None


def _with_multibyte_at(boundary: int, character: bytes) -> bytes:
    """A file whose ``character`` starts one byte before ``boundary``, so it straddles it."""
    head = b'{"messages": [{"role": "user", "content": "'
    filler = b"a" * (boundary - 1 - len(head))
    return head + filler + character + b'"}]}'


def test_characters_straddling_a_validation_piece_are_valid() -> None:
    for character in ("\u00e9".encode(), "\u7528".encode(), "\U0001f600".encode()):
        data = _with_multibyte_at(_VALIDATION_CHUNK, character)
        fast = typed_messages(data)
        assert fast is not None
        assert fast[0]["content"].endswith(character.decode())


def test_a_sequence_cut_at_a_validation_piece_is_invalid() -> None:
    cut = _with_multibyte_at(_VALIDATION_CHUNK, b"\xe7\x94")  # a 3-byte character missing its last byte
    assert typed_messages(cut) is None
    with pytest.raises(UnicodeDecodeError):
        generic_document(cut)


def _at_depth(depth: int, action: Any) -> Any:
    return action() if depth == 0 else _at_depth(depth - 1, action)


def test_a_deep_message_reads_the_same_from_a_deep_stack() -> None:
    nesting = 400
    message = {"role": "user", "content": "deep", "extra": json.loads("[" * nesting + "]" * nesting)}
    data = json.dumps({"messages": [message]}).encode()
    fast = typed_messages(data)
    assert fast is not None
    headroom = sys.getrecursionlimit() - nesting // 2
    assert _at_depth(headroom, lambda: fast[0]) == {"role": "user", "content": "deep"}


def test_an_entry_too_deep_for_json_loads_makes_the_file_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    # json.loads nests less deeply than msgspec: an object with a number msgspec cannot hold
    # falls back to it, and a RecursionError there (even at the parser's depth) is D-8's answer.
    data = b'{"messages": [{"role": "user", "content": "x", "id": 1e400}]}'
    fast = typed_messages(data)
    assert fast is not None

    def too_deep(_: bytes) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(decode, "generic_document", too_deep)
    with pytest.raises(ToolError) as raised:
        fast[0]
    assert raised.value.code == "conversation_unreadable"


def test_a_forked_child_parses_on_its_own_thread() -> None:
    data = b'{"messages": [{"role": "user", "content": "x"}]}'
    assert decode.on_parser_thread(len, data) == len(data)  # the parent's worker exists now
    pid = os.fork()
    if pid == 0:  # the child: a worker it did not start would never answer
        os._exit(0 if decode.on_parser_thread(len, data) == len(data) else 1)
    deadline = time.monotonic() + 30
    while (waited := os.waitpid(pid, os.WNOHANG)) == (0, 0) and time.monotonic() < deadline:
        time.sleep(0.01)
    if waited == (0, 0):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child never got its parse back")
    assert os.waitstatus_to_exitcode(waited[1]) == 0


@pytest.mark.parametrize("process_limit", [None, 0])
def test_an_integer_longer_than_python_converts_is_kept_as_its_text(process_limit: int | None) -> None:
    """D-8: digits beyond 4,300 stay text (linear), even where the process lifted Python's limit (0: none)."""
    digits = "9" * 1_000_000
    saved = sys.get_int_max_str_digits()
    if process_limit is not None:
        sys.set_int_max_str_digits(process_limit)
    try:
        document = generic_document(b'{"n": -%s, "m": 12, "e": %s}' % (digits.encode(), b"7" * LONGEST_INTEGER))
    finally:
        sys.set_int_max_str_digits(saved)
    assert isinstance(document["n"], LongInteger)
    assert document["n"].text == "-" + digits
    assert document["m"] == 12
    assert document["e"] == int("7" * LONGEST_INTEGER)
