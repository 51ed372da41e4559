"""Reading a tools/call reply the way the contract allows (D-10), and comparing JSON exactly."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ccweb_conformance.checks.failures import fail
from ccweb_conformance.jsontext import replace_lone_surrogates
from ccweb_conformance.transport.exchange import Exchange

SeenResults = dict[tuple[str, str], list[str]]
"""What a declared outputSchema said of each result already judged, by the schema's and the result's JSON text (a
run's: its context's ``seen_results``)."""


@dataclass(frozen=True)
class ToolOutcome:
    """A tool result: the contract's result object and where it was found."""

    exchange: Exchange
    is_error: bool
    result: dict[str, Any]
    in_structured_content: bool
    json_text_blocks: int

    def error_mismatch(self, code: str) -> Literal["code", "flag"] | None:
        """How this answer falls short of the tool error ``code``: ``code`` (not that error object), ``flag``
        (the object, but without ``isError: true``, ERR-1), or None when it is exactly that error."""
        error = self.result.get("error")
        if self.result.get("ok") is not False or (error.get("code") if isinstance(error, dict) else None) != code:
            return "code"
        return None if self.is_error else "flag"

    @property
    def arguments(self) -> Any:
        """The arguments the call sent (None when it sent none)."""
        params = (self.exchange.request or {}).get("params")
        return params.get("arguments") if isinstance(params, dict) else None


_SAME_TYPE_EQUAL = frozenset({dict, list, str, int, float, bool, type(None)})
"""JSON's types: two values of one of them compare without the checks that mixed types need."""


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality: numbers compare by value, but booleans are never numbers."""
    kind = type(left)
    if kind is not type(right) or kind not in _SAME_TYPE_EQUAL:
        return _mixed_equal(left, right)
    if kind is dict:
        return left.keys() == right.keys() and all(map(json_equal, left.values(), map(right.__getitem__, left)))
    if kind is list:
        return len(left) == len(right) and all(map(json_equal, left, right))
    return bool(left == right)


def _mixed_equal(left: Any, right: Any) -> bool:
    """:func:`json_equal` of values of different types (or of types JSON does not have)."""
    if type(left) is str:
        return type(right) is str and left == right
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(json_equal(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


def _same_leaf(expected: Any, actual: Any, intact: bool) -> bool:
    """JSON equality, where a lone surrogate may come back as U+FFFD unless ``intact`` (D-3, UNI-3)."""
    return json_equal(expected, actual) or (
        not intact
        and isinstance(expected, str)
        and isinstance(actual, str)
        and len(expected) == len(actual)
        and replace_lone_surrogates(expected) == actual
    )


def contract_differences(expected: Any, actual: Any, path: str = "$", *, intact: bool = False) -> list[str]:
    """Where ``actual`` differs from ``expected``; extra object members are allowed (D-5).

    A lone surrogate of ``expected`` may be U+FFFD in ``actual`` (UNI-3), unless ``intact`` (UNI-4).
    """
    # the common case, no difference anywhere, is told by json_equal without naming each place
    return [] if json_equal(expected, actual) else _differences(expected, actual, path, intact)


def _differences(expected: Any, actual: Any, path: str, intact: bool) -> list[str]:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {json.dumps(actual, ensure_ascii=False)}"]
        differences: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                differences.append(f"{path}.{key}: missing")
            else:
                differences.extend(contract_differences(value, actual[key], f"{path}.{key}", intact=intact))
        return differences
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {len(expected)} elements, got {json.dumps(actual, ensure_ascii=False)}"]
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in contract_differences(e, a, f"{path}[{i}]", intact=intact)
        ]
    if not _same_leaf(expected, actual, intact):
        shown_expected = json.dumps(expected, ensure_ascii=False)
        shown_actual = json.dumps(actual, ensure_ascii=False)
        return [f"{path}: expected {shown_expected}, got {shown_actual}"]
    return []


def tool_outcome(exchange: Exchange, schema_text: str | None = None, seen: SeenResults | None = None) -> ToolOutcome:
    """The result object of a tools/call reply, enforcing PLC-1, PLC-2 and, given the tool's outputSchema as
    :func:`declared_schema_text` (made once for a run's many calls), PLC-4 (each distinct result judged once per
    ``seen``: the run context's memo; none, every result judged)."""
    response = exchange.response
    if response is None:
        raise fail("no reply to tools/call", expected="a JSON-RPC response", actual=None, exchange=exchange)
    if "error" in response:
        raise fail(
            "tools/call was answered with a JSON-RPC error instead of a tool result",
            expected="a result with the contract's object",
            actual=response["error"],
            exchange=exchange,
        )
    result = response.get("result")
    if not isinstance(result, dict):
        raise fail("tools/call result is not an object", expected="an object", actual=result, exchange=exchange)
    found: list[dict[str, Any]] = []
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        found.append(structured)
    text_objects = 0
    content = result.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            try:
                parsed = json.loads(block["text"])
            except ValueError:
                continue  # D-10: non-JSON text blocks may stand beside the result
            if isinstance(parsed, dict):
                found.append(parsed)
                text_objects += 1
    if not found:
        raise fail(
            "PLC-1: the result object is neither structuredContent nor the JSON text of a text block",
            expected='structuredContent or a text block holding {"ok": ...}',
            actual=result,
            exchange=exchange,
            proves="PLC-1",
        )
    if not all(json_equal(found[0], other) for other in found[1:]):
        raise fail(
            "PLC-2: the JSON objects in structuredContent and the text blocks differ",
            expected="equal objects",
            actual=found,
            exchange=exchange,
            proves="PLC-2",
        )
    if schema_text is not None:
        _check_declared_schema(exchange, schema_text, structured, {} if seen is None else seen)
    return ToolOutcome(exchange, result.get("isError") is True, found[0], isinstance(structured, dict), text_objects)


def declared_schema_text(output_schema: dict[str, Any]) -> str:
    """A declared outputSchema as canonical JSON text: what its validator and its verdicts are kept by."""
    return json.dumps(output_schema, sort_keys=True)


def _check_declared_schema(exchange: Exchange, schema_text: str, structured: Any, seen: SeenResults) -> None:
    """PLC-4: a tool with an outputSchema returns structuredContent valid against it (MCP 2025-06-18+)."""
    if not isinstance(structured, dict):
        raise fail(
            "PLC-4: the tool declares an outputSchema, so every result must carry structuredContent "
            "(text-only results are allowed only for a tool without an outputSchema)",
            expected="structuredContent valid against the declared outputSchema",
            actual=exchange.response.get("result") if exchange.response else None,
            exchange=exchange,
            proves="PLC-4",
        )
    _check_registered_code(exchange, structured)
    problem, validator = _declared_validator(schema_text)
    errors = [problem] if problem else _declared_problems(schema_text, validator, structured, seen)
    if errors:
        raise fail(
            "PLC-4: structuredContent does not validate against the declared outputSchema: " + "; ".join(errors[:3]),
            expected="valid against the outputSchema",
            actual=structured,
            exchange=exchange,
            proves="PLC-4",
        )


_SEEN_LIMIT = 1024


def _declared_problems(schema_text: str, validator: Any, structured: dict[str, Any], seen: SeenResults) -> list[str]:
    """:func:`schema_problems` of a result, judged once per distinct result: a run gets the same result in
    both eras and from repeated calls, and validating costs far more than writing the result as JSON."""
    try:
        key = (schema_text, json.dumps(structured))
    except (TypeError, ValueError):
        return schema_problems(validator, structured)
    found = seen.get(key)
    if found is None:
        found = schema_problems(validator, structured)
        if len(seen) >= _SEEN_LIMIT:
            seen.clear()
        seen[key] = found
    return list(found)


def schema_problems(validator: Any, instance: Any) -> list[str]:
    """Each validation error at its deepest relevant place, as ``$.path: message`` (not "not valid under any of
    the given schemas" for a oneOf: the branch that came closest says what is wrong)."""
    from jsonschema.exceptions import best_match  # noqa: PLC0415

    deepest = [best_match([error]) or error for error in validator.iter_errors(instance)]
    return [f"{error.json_path}: {error.message}" for error in deepest]


def _check_registered_code(exchange: Exchange, structured: dict[str, Any]) -> None:
    """ERR-1: an error object's code is one of the registry's; checked before the schema, which would only
    say the object matches none of its branches."""
    from ccweb_spec import error_codes  # noqa: PLC0415

    error = structured.get("error") if structured.get("ok") is False else None
    code = error.get("code") if isinstance(error, dict) else None
    if not isinstance(code, str):
        return
    registered = [entry.code for entry in error_codes()]
    if code not in registered:
        raise fail(
            f"ERR-1: the error code {json.dumps(code)} is not in the error-code registry",
            expected=f"one of {', '.join(registered)}",
            actual=structured,
            exchange=exchange,
            proves="ERR-1",
        )


@lru_cache(maxsize=8)
def _declared_validator(schema_text: str) -> tuple[str | None, Any]:
    """Why a declared outputSchema is not a valid 2020-12 schema (and no validator), or None and its
    validator; made once per schema, not once per call.

    Validating against a malformed schema (``{"type": 12}``) can raise anything, not only a
    ``SchemaError``: the schema is checked against the meta-schema first.

    The schema is registered and crawled once, and validated through a ``$ref`` to it: a validator
    made on the schema itself crawls it again at every ``$ref`` it follows (a bundled outputSchema
    refers to its parts by ``$id``), which was most of the cost of checking each result.
    """
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (only runs with a declared schema)
    from jsonschema.exceptions import SchemaError  # noqa: PLC0415
    from referencing import Registry  # noqa: PLC0415
    from referencing.jsonschema import DRAFT202012  # noqa: PLC0415

    schema = json.loads(schema_text)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"the declared outputSchema is not a valid schema: {error.message}", None
    registry: Registry[Any] = Registry().with_resource(_DECLARED_URI, DRAFT202012.create_resource(schema)).crawl()
    return None, Draft202012Validator({"$ref": _DECLARED_URI}, registry=registry)


_DECLARED_URI = "urn:ccweb-conformance:declared-output-schema"
"""Where a declared outputSchema is registered for validation (any URI no schema can refer to)."""
