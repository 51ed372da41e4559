"""The outcome module alone: JSON equality, the contract's differences, reading a tools/call reply.

Exact values, no server: each rule of D-5 (extra members allowed), D-3 (a lone surrogate may come
back as U+FFFD unless intact is asked), D-10 (where the result object may be) and PLC-1/2/4.
"""

from __future__ import annotations

from typing import Any

import pytest

from ccweb_conformance.checks import oracle
from ccweb_conformance.checks.failures import ConformanceFailure
from ccweb_conformance.checks.oracle import Expected
from ccweb_conformance.checks.outcome import (
    ToolOutcome,
    contract_differences,
    declared_schema_text,
    json_equal,
    tool_outcome,
)
from ccweb_conformance.jsontext import compact, replace_lone_surrogates
from ccweb_conformance.transport.exchange import Exchange

OK = {"ok": True, "conversationId": "a", "items": []}


def reply(result: Any) -> Exchange:
    return Exchange({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}, {"jsonrpc": "2.0", "id": 1, "result": result})


def text(value: Any) -> dict[str, str]:
    return {"type": "text", "text": value if isinstance(value, str) else compact(value)}


def failure_of(exchange: Exchange, schema: dict[str, Any] | None = None) -> ConformanceFailure:
    with pytest.raises(ConformanceFailure) as raised:
        tool_outcome(exchange, None if schema is None else declared_schema_text(schema))
    return raised.value


# -- json_equal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (15, 15.0, True),
        (True, 1, False),
        (False, 0, False),
        (True, True, True),
        (None, None, True),
        ("1", 1, False),
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2.0], "a": 1}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
        ([1, 2], [2, 1], False),
        ([1], [1, 1], False),
        ({"a": True}, {"a": 1}, False),
    ],
)
def test_json_equal(left: Any, right: Any, equal: bool) -> None:
    assert json_equal(left, right) is equal
    assert json_equal(right, left) is equal


def test_replaced_surrogates_turns_each_lone_surrogate_into_fffd_only() -> None:
    assert replace_lone_surrogates("a\ud800b\udfffc\U0001f600") == "a\ufffdb\ufffdc\U0001f600"


# -- contract_differences -------------------------------------------------------------------------


def test_equal_values_and_extra_members_differ_in_nothing() -> None:
    assert contract_differences({"a": 1, "b": {"c": [1]}}, {"b": {"c": [1.0], "x": 0}, "a": 1, "y": None}) == []


def test_each_difference_is_one_line_with_its_path() -> None:
    expected = {"ok": True, "totalChars": 5, "items": [{"content": "ab", "truncated": False}], "gone": 1}
    actual = {"ok": True, "totalChars": 8, "items": [{"content": "ab", "truncated": 0}]}
    assert contract_differences(expected, actual) == [
        "$.totalChars: expected 5, got 8",
        "$.items[0].truncated: expected false, got 0",
        "$.gone: missing",
    ]


def test_a_list_of_another_length_or_a_non_object_is_one_difference() -> None:
    assert contract_differences({"items": [1, 2]}, {"items": [1]}) == ["$.items: expected 2 elements, got [1]"]
    assert contract_differences({"items": []}, {"items": "none"}) == ['$.items: expected 0 elements, got "none"']
    assert contract_differences({"a": 1}, ["用户"]) == ['$: expected an object, got ["用户"]']


def test_a_lone_surrogate_may_come_back_as_fffd_unless_intact() -> None:
    assert contract_differences({"c": "x\ud800"}, {"c": "x\ufffd"}) == []
    assert contract_differences({"c": "x\ud800"}, {"c": "x\ufffd"}, intact=True) == [
        '$.c: expected "x\ud800", got "x\ufffd"'
    ]
    assert contract_differences({"c": "x\ud800"}, {"c": "x"}) == ['$.c: expected "x\ud800", got "x"']


# -- tool_outcome -------------------------------------------------------------------------------


def test_the_result_object_is_read_from_structured_content_and_the_text_blocks() -> None:
    outcome = tool_outcome(reply({"structuredContent": OK, "content": [text("note"), text(OK)], "isError": False}))
    assert (outcome.result, outcome.is_error, outcome.in_structured_content, outcome.json_text_blocks) == (
        OK,
        False,
        True,
        1,
    )


def test_a_text_block_alone_is_enough_and_is_error_is_true_only_when_it_is_true() -> None:
    error = {"ok": False, "error": {"code": "invalid_arguments", "message": "m", "field": "limit"}}
    outcome = tool_outcome(reply({"content": [text(error)], "isError": True}))
    assert (outcome.result, outcome.is_error, outcome.in_structured_content, outcome.json_text_blocks) == (
        error,
        True,
        False,
        1,
    )
    assert tool_outcome(reply({"content": [text(OK)], "isError": "yes"})).is_error is False


@pytest.mark.parametrize(
    ("exchange", "what", "proves"),
    [
        (Exchange({"id": 1}, None), "no reply to tools/call", ()),
        (
            Exchange({"id": 1}, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}}),
            "tools/call was answered with a JSON-RPC error instead of a tool result",
            (),
        ),
        (reply([OK]), "tools/call result is not an object", ()),
        (
            reply({"content": [text("not json"), text([OK]), {"type": "image", "data": ""}]}),
            "PLC-1: the result object is neither structuredContent nor the JSON text of a text block",
            ("PLC-1",),
        ),
        (
            reply({"structuredContent": OK, "content": [text({**OK, "items": [1]})]}),
            "PLC-2: the JSON objects in structuredContent and the text blocks differ",
            ("PLC-2",),
        ),
    ],
    ids=["no-reply", "rpc-error", "not-object", "plc-1", "plc-2"],
)
def test_a_reply_without_one_result_object_fails_its_check(
    exchange: Exchange, what: str, proves: tuple[str, ...]
) -> None:
    failure = failure_of(exchange)
    assert (failure.what, failure.proves, failure.exchange) == (what, proves, exchange)


SCHEMA = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}


def test_a_declared_output_schema_wants_valid_structured_content() -> None:
    valid = reply({"structuredContent": OK, "content": [text(OK)]})
    assert tool_outcome(valid, declared_schema_text(SCHEMA)).result == OK
    text_only = failure_of(reply({"content": [text(OK)]}), SCHEMA)
    assert (text_only.proves, text_only.what.split(",")[0]) == (
        ("PLC-4",),
        "PLC-4: the tool declares an outputSchema",
    )
    invalid = failure_of(reply({"structuredContent": {"ok": 1}, "content": [text({"ok": 1})]}), SCHEMA)
    assert (invalid.proves, invalid.what) == (
        ("PLC-4",),
        "PLC-4: structuredContent does not validate against the declared outputSchema: "
        "$.ok: 1 is not of type 'boolean'",
    )


def test_a_schema_text_made_once_judges_as_the_schema_itself() -> None:
    once = declared_schema_text(SCHEMA)
    valid = reply({"structuredContent": OK, "content": [text(OK)]})
    assert tool_outcome(valid, once, {}).result == OK
    with pytest.raises(ConformanceFailure) as raised:
        invalid = reply({"structuredContent": {"ok": 1}, "content": [text({"ok": 1})]})
        tool_outcome(invalid, once, {})
    assert (raised.value.proves, raised.value.what.rsplit(": ", 1)[-1]) == (("PLC-4",), "1 is not of type 'boolean'")


def test_an_invalid_declared_schema_is_named_as_such_not_a_crash() -> None:
    """Validating against ``{"type": 12}`` raised TypeError before the schema was checked first."""
    failure = failure_of(reply({"structuredContent": OK}), {"type": 12})
    assert (failure.proves, failure.what) == (
        ("PLC-4",),
        "PLC-4: structuredContent does not validate against the declared outputSchema: "
        "the declared outputSchema is not a valid schema: 12 is not valid under any of the given schemas",
    )


# -- the one comparison with the oracle -----------------------------------------------------------


def outcome(result: dict[str, Any], is_error: bool) -> ToolOutcome:
    return ToolOutcome(reply({}), is_error, result, True, 1)


def test_the_oracle_comparison_names_is_error_first_then_the_fields() -> None:
    expected = Expected({"ok": False, "error": {"code": "conversation_not_found"}}, True)
    assert oracle.differences(expected, outcome({"ok": False, "error": {"code": "conversation_not_found"}}, True)) == []
    assert oracle.differences(expected, outcome({"ok": True}, False)) == [
        "isError: expected true, got false",
        "$.ok: expected false, got true",
        "$.error: missing",
    ]
