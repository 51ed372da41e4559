"""Arbitrary JSON as tool arguments (hypothesis): never a crash, always the contract's answer.

The oracle is written here from D-6 / D-7, not taken from the reference: arguments are valid
iff they form an object with only the three known properties, ``conversationId`` a string,
``limit`` an integral number in 1..50 and ``maxChars`` one in 1..1000 (booleans are not
numbers). Invalid arguments give ``invalid_arguments`` naming an offending argument; valid
ones give a success object (validated by the spec's schema, echoing the effective values) or
the ID / file error code the conversation calls for.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from line_client import TOOL, LineClient

import ccweb_spec
from ccweb_reference.store import SessionStore, clean_id
from ccweb_reference.tool import call_tool

SOURCE = "known"
EXISTING = {"known", "other-1"}
BOUNDS = {"limit": (1, 50, 15), "maxChars": (1, 1000, 1000)}
SUCCESS = ccweb_spec.validator("success")
ERROR = ccweb_spec.validator("error")
StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]  # the conftest fixture

# --- arbitrary JSON, biased towards the interesting neighbourhood of valid arguments --------

alphabet = st.one_of(
    st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),  # lone surrogates
    st.sampled_from("ab-1 \x00\u00e9\u200b\U0001f642"),
)
any_text = st.text(alphabet, max_size=12)
numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.integers(min_value=-2, max_value=1002),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 15.0, 15.5, 50.0, 50.000001, 1e300, 1000.0, 1e-300]),
)
scalars = st.one_of(st.none(), st.booleans(), numbers, any_text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(any_text, inner, max_size=4)),
    max_leaves=12,
)
ids = st.one_of(
    st.sampled_from(["known", "other-1", "missing-id", "", "../known", "kn own", "known.json", "🙂", "x" * 300]),
    any_text,
)
keys = st.one_of(st.sampled_from(["conversationId", "limit", "maxChars"]), any_text)
near_valid = st.dictionaries(keys, st.one_of(json_values, ids, numbers), max_size=4)
in_range = {
    name: st.one_of(st.integers(low, high), st.integers(low, high).map(float))
    for name, (low, high, _) in {"limit": (1, 50, 0), "maxChars": (1, 1000, 0)}.items()
}
mostly_valid = st.fixed_dictionaries({}, optional={"conversationId": ids, **in_range})
arguments_strategy = st.one_of(
    near_valid,
    json_values,
    mostly_valid,
    st.fixed_dictionaries({}, optional={"conversationId": ids, "limit": numbers, "maxChars": numbers}),
)


# --- the oracle ----------------------------------------------------------------------------


def is_integral_in(value: Any, low: int, high: int) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    if isinstance(value, float) and (not math.isfinite(value) or not value.is_integer()):
        return False
    return low <= value <= high


def offending(arguments: dict[str, Any]) -> set[str]:
    """The argument names that make ``arguments`` invalid (empty: valid)."""
    bad = {name for name in arguments if name not in ("conversationId", "limit", "maxChars")}
    if "conversationId" in arguments and not isinstance(arguments["conversationId"], str):
        bad.add("conversationId")
    for name, (low, high, _) in BOUNDS.items():
        if name in arguments and not is_integral_in(arguments[name], low, high):
            bad.add(name)
    return bad


def check_answer(arguments: Any, result: dict[str, Any], is_error: bool, source: str | None) -> None:
    """``result`` is exactly what D-6 / D-7 call for with these arguments and this source."""
    assert is_error is (result.get("ok") is False)
    if arguments is None:  # no arguments at all (call_tool's None; JSON null over the wire): the defaults
        arguments = {}
    if not isinstance(arguments, dict):
        assert result["error"]["code"] == "invalid_arguments"
        assert result["error"]["field"] == "arguments"
        assert ERROR.is_valid(result)
        return
    bad = offending(arguments)
    if bad:
        assert result["error"]["code"] == "invalid_arguments", result
        assert result["error"]["field"] in bad
        assert ERROR.is_valid(result)
        return
    explicit = arguments.get("conversationId")
    cleaned = clean_id(explicit) if explicit is not None else clean_id(source or "")
    if explicit is not None and not cleaned:
        expected_code = "invalid_conversation_id"
    elif explicit is None and not cleaned:
        expected_code = "missing_source_conversation"
    elif cleaned not in EXISTING:
        expected_code = "conversation_not_found"
    else:
        assert not is_error
        assert SUCCESS.is_valid(result), result
        assert result["conversationId"] == cleaned
        for name, (_, _, default) in BOUNDS.items():
            echoed = result["requestedLimit" if name == "limit" else "maxChars"]
            assert type(echoed) is int
            assert echoed == arguments.get(name, default)
        assert result["totalChars"] <= result["maxChars"]
        assert result["returnedCount"] == len(result["items"]) <= result["requestedLimit"]
        return
    assert result["error"]["code"] == expected_code, result
    assert "field" not in result["error"] or expected_code != "invalid_arguments"
    assert ERROR.is_valid(result)


# --- the sessions directory -------------------------------------------------------------------


def write_sessions(root: Path) -> None:
    for cid in EXISTING:
        messages = [{"role": "user", "content": f"{cid} input {n} " + "é" * n, "timestamp": None} for n in range(60)]
        (root / f"{cid}.json").write_text(json.dumps({"id": cid, "messages": messages}), encoding="utf-8")


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("arguments") / "sessions"
    root.mkdir()
    write_sessions(root)
    return root


DIRECT = settings(max_examples=400, database=None, derandomize=True, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip


@DIRECT
@given(arguments=arguments_strategy, bound=st.booleans())
def test_call_tool_answers_any_json_arguments(sessions: Path, arguments: Any, bound: bool) -> None:
    source = SOURCE if bound else None
    result, is_error = call_tool(SessionStore(sessions), arguments, source)
    check_answer(arguments, result, is_error, source)


# --- the same through a running stdio server ------------------------------------------------


@pytest.fixture(scope="module")
def server(start_server: StartServer, sessions: Path) -> LineClient:
    process, _ = start_server(sessions, source=SOURCE)
    return LineClient(process)


SERVER = settings(max_examples=150, database=None, derandomize=True, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip


@SERVER
@given(arguments=arguments_strategy)
def test_stdio_server_answers_any_json_arguments(server: LineClient, arguments: Any) -> None:
    message = server.request("tools/call", {"name": TOOL, "arguments": arguments})
    if not isinstance(arguments, dict | None):  # MCP: arguments is an object; the SDK rejects others itself
        assert message["error"]["code"] == -32602
        return
    result = message["result"]
    [block] = result["content"]
    assert json.loads(block["text"]) == result["structuredContent"]
    check_answer(arguments, result["structuredContent"], result.get("isError", False), SOURCE)
    assert server.process.poll() is None


def test_stdio_server_survives_huge_and_deep_arguments(server: LineClient) -> None:
    huge_id = "a" * 10_000_000  # cleaned, it is a name far too long for the file system
    message = server.request("tools/call", {"name": TOOL, "arguments": {"conversationId": huge_id}})
    assert message["result"]["structuredContent"]["error"]["code"] == "conversation_not_found"
    # too deep for the server's JSON parser: not a usable request (the SDK's stdio loop answers
    # none, as with any line that is not JSON-RPC); the next requests are answered as usual
    assert server.process.stdin is not None
    server.process.stdin.write(
        b'{"jsonrpc": "2.0", "id": "deep", "method": "tools/call", "params": {"name": "' + TOOL.encode()
        + b'", "arguments": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}}\n"
    )  # fmt: skip
    server.process.stdin.flush()
    shallow = server.request("tools/call", {"name": TOOL, "arguments": {"x": [[[[[]]]]]}})
    error = shallow["result"]["structuredContent"]["error"]
    assert (error["code"], error["field"]) == ("invalid_arguments", "x")
    answer = server.request("tools/call", {"name": TOOL, "arguments": {"conversationId": "known", "limit": 1}})
    assert answer["result"]["structuredContent"]["items"][0]["content"] == "known input 59 " + "é" * 59
    assert server.process.poll() is None
