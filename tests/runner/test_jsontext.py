"""``jsontext.indented`` writes exactly what ``json.dumps(value, indent=2)`` writes, on every shape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccweb_conformance.jsontext import indented, strict_json

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),  # includes lone surrogates, control characters, quotes, backslashes
)
VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)

SHAPES: list[Any] = [
    {},
    [],
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    {"messages": [{"role": "user", "content": "😀 用户\u2028\u0000\"\\", "timestamp": None}]},
    {"lone": "\ud800", "pair": "\ud83d\ude00"},
    [1.0, 1e-7, 1e300, -0.0, 12345678901234567890, 0.1, 5e-324],
    "top-level string",
    3,
]


@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("value", SHAPES, ids=range(len(SHAPES)))
def test_known_shapes(value: Any, ensure_ascii: bool) -> None:
    assert indented(value, ensure_ascii=ensure_ascii) == json.dumps(value, indent=2, ensure_ascii=ensure_ascii)


@settings(max_examples=300, deadline=None)
@given(value=VALUES, ensure_ascii=st.booleans())
def test_any_json_value(value: Any, ensure_ascii: bool) -> None:
    assert indented(value, ensure_ascii=ensure_ascii) == json.dumps(value, indent=2, ensure_ascii=ensure_ascii)


def test_strict_json_is_true_only_for_a_value_with_no_nan_infinity_or_lone_surrogate() -> None:
    assert strict_json({"a": [1, 2.5, "é 😀", None, True], "b": ("x",)})
    assert not strict_json({"a": [float("nan")]})
    assert not strict_json({"a": {"b": float("-inf")}})
    assert not strict_json({"a": "x\ud800y"})
    assert not strict_json({"a\udc00": 1})  # keys too
    assert not strict_json({"a": {1, 2}})  # not JSON at all: the callers' walks decide
