"""The pure core and argument parsing of the reference, against hand-computed results."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

import ccweb_spec
from ccweb_reference.arguments import Arguments, parse_arguments
from ccweb_reference.core import ToolError, list_user_inputs

CASES: list[dict[str, Any]] = ccweb_spec.core_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_core_case(case: dict[str, Any]) -> None:
    result = list_user_inputs("c", case["messages"], case.get("limit", 15), case.get("maxChars", 1000))
    assert result == case["expected"]


def test_core_cases_are_well_formed() -> None:
    """The hand-computed expectations are themselves valid results citing real requirements."""
    raw = yaml.safe_load(ccweb_spec.spec_files().joinpath("core_cases.yaml").read_text("utf-8"))
    assert list(ccweb_spec.core_cases_validator().iter_errors(raw)) == []
    known = {r.id for r in ccweb_spec.requirements()}
    success = ccweb_spec.validator("success")
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    for case in CASES:
        assert set(case["requirements"]) <= known, case["name"]
        assert list(success.iter_errors(case["expected"])) == [], case["name"]
    covered = {r for c in CASES for r in c["requirements"]}
    core_ids = {r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in {"SEL", "BUD", "UNI", "RES"}}
    assert core_ids - covered == set()


VALID_ARGUMENTS = [
    (None, Arguments(None, 15, 1000)),
    ({}, Arguments(None, 15, 1000)),
    ({"conversationId": "abc", "limit": 1, "maxChars": 1}, Arguments("abc", 1, 1)),
    ({"limit": 50, "maxChars": 1000}, Arguments(None, 50, 1000)),
    ({"limit": 15.0}, Arguments(None, 15, 1000)),
    ({"maxChars": 7.0}, Arguments(None, 15, 7)),
    ({"conversationId": "../!!"}, Arguments("../!!", 15, 1000)),
    ({"conversationId": ""}, Arguments("", 15, 1000)),
]


@pytest.mark.parametrize(("arguments", "expected"), VALID_ARGUMENTS)
def test_valid_arguments(arguments: dict[str, Any] | None, expected: Arguments) -> None:
    parsed = parse_arguments(arguments)
    assert parsed == expected
    assert type(parsed.limit) is int
    assert type(parsed.max_chars) is int


INVALID_ARGUMENTS = [
    ({"limit": "15"}, "limit"),
    ({"limit": True}, "limit"),
    ({"limit": False}, "limit"),
    ({"limit": None}, "limit"),
    ({"limit": [15]}, "limit"),
    ({"limit": {"value": 15}}, "limit"),
    ({"limit": 15.5}, "limit"),
    ({"limit": float("nan")}, "limit"),
    ({"limit": float("inf")}, "limit"),
    ({"limit": 0}, "limit"),
    ({"limit": -1}, "limit"),
    ({"limit": 51}, "limit"),
    ({"limit": 1e300}, "limit"),
    ({"maxChars": 0}, "maxChars"),
    ({"maxChars": 1001}, "maxChars"),
    ({"maxChars": "1000"}, "maxChars"),
    ({"maxChars": 10.5}, "maxChars"),
    ({"maxChars": True}, "maxChars"),
    ({"conversationId": 42}, "conversationId"),
    ({"conversationId": None}, "conversationId"),
    ({"conversationId": ["abc"]}, "conversationId"),
    ({"query": "tests"}, "query"),
    ({"limit": 3, "Limit": 3}, "Limit"),
    ({"conversationId": "abc", "extra": 1}, "extra"),
]


@pytest.mark.parametrize(("arguments", "field"), INVALID_ARGUMENTS)
def test_invalid_arguments_name_the_field(arguments: dict[str, Any], field: str) -> None:
    with pytest.raises(ToolError) as raised:
        parse_arguments(arguments)
    error = raised.value.to_object()
    message = error["error"].pop("message")
    assert isinstance(message, str)
    assert message
    assert error == {"ok": False, "error": {"code": "invalid_arguments", "field": field}}


def test_several_wrong_arguments_name_one_of_them() -> None:
    with pytest.raises(ToolError) as raised:
        parse_arguments({"limit": "x", "maxChars": 0})
    assert raised.value.code == "invalid_arguments"
    assert raised.value.field in {"limit", "maxChars"}
