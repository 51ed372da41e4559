"""Checks received messages against the MCP schema of a revision, with the SDK's own validators."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ccweb_conformance.jsontext import BeyondLimits, compact, read_json
from ccweb_conformance.transport.channel import cut
from ccweb_conformance.transport.sdk_types import methods, types
from ccweb_conformance.transport.versions import MODERN_VERSION

MAX_ERRORS = 10


def _describe(where: str, error: ValidationError) -> list[str]:
    items = error.errors()[:MAX_ERRORS]
    return [f"{where}: {'.'.join(map(str, item['loc'])) or '(root)'}: {item['msg']}" for item in items]


def message_violations(message: Any, *, version: str, method: str | None) -> list[str]:  # noqa: PLR0911
    """Where ``message`` breaks the MCP schema at ``version``.

    ``method`` is the method of the request a response answers (None when unknown, e.g. raw text).
    """
    try:
        # strict: JSON types as written ("-32700" is not an error code, "true" not a boolean)
        types.jsonrpc_message_adapter.validate_python(message, by_name=False, strict=True)
    except ValidationError as exc:
        return _describe("JSON-RPC envelope", exc)
    if not isinstance(message, dict):
        return []
    if "method" in message:
        return _request_violations(message, version)
    if "result" in message and method is not None:
        try:
            methods.validate_server_result(method, version, message["result"])
        except KeyError:
            return []  # the schema defines no result for this method at this version
        except ValidationError as exc:
            return _describe(f"{method} result", exc)
        return _strict_result_violations(method, message["result"]) + _text_block_violations(method, message["result"])
    return []


_RESULT_MEMBER_TYPES: dict[str, dict[str, type]] = {
    "tools/call": {"isError": bool, "content": list, "structuredContent": dict},
}
"""Members whose JSON type the SDK's (lax) result models would coerce: checked as written."""


def _strict_result_violations(method: str, result: Any) -> list[str]:
    types_of = _RESULT_MEMBER_TYPES.get(method, {})
    if not isinstance(result, dict):
        return []
    return [
        f"{method} result: {name}: must be a JSON {_JSON_NAMES[wanted]}, got {_shown(result[name])}"
        for name, wanted in types_of.items()
        if name in result and not isinstance(result[name], wanted)
    ]


_JSON_NAMES: dict[type, str] = {bool: "boolean", list: "array", dict: "object"}
_MAX_SHOWN = 200


def _shown(value: Any) -> str:
    """A value the server sent (parsed JSON), in JSON notation (never a Python repr), cut to a readable length."""
    return cut(compact(value), _MAX_SHOWN)


def _text_block_violations(method: str, result: Any) -> list[str]:
    """A text block holding JSON must hold strict JSON (D-16): no NaN, no duplicate member names.

    Text that is not JSON at all is allowed beside the result (D-10) and not looked at here.
    """
    content = result.get("content") if method == "tools/call" and isinstance(result, dict) else None
    found: list[str] = []
    for index, block in enumerate(content if isinstance(content, list) else []):
        text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
        if not isinstance(text, str) or text.lstrip()[:1] not in ("{", "["):
            continue
        try:
            problems = read_json(text).problems
        except BeyondLimits as exc:
            problems = [str(exc)]
        except ValueError:
            continue
        found.extend(f"{method} result: content.{index}.text: the JSON text breaks RFC 8259: {p}" for p in problems)
    return found


def reply_id_violations(response: dict[str, Any], expected_id: Any) -> list[str]:
    """A reply must carry the id of the request it answers; null when that id could not be read."""
    if "id" not in response:
        return ["JSON-RPC envelope: a response must have an id member (null when the request's id was unreadable)"]
    actual = response["id"]
    if type(actual) is type(expected_id) and actual == expected_id:
        return []
    wanted = "null (the message had no id that could be read)" if expected_id is None else _shown(expected_id)
    return [f"JSON-RPC envelope: id: the reply must echo the request id {wanted}, got {_shown(actual)}"]


def _request_violations(message: dict[str, Any], version: str) -> list[str]:
    method, params = message["method"], message.get("params")
    is_request = "id" in message
    kind = "server request" if is_request else "notification"
    parse = methods.parse_server_request if is_request else methods.parse_server_notification
    try:
        parse(method, version, params)
    except KeyError:
        return [f"{kind} {_shown(method)} is not defined for servers at {version}"] if is_request else []
    except ValidationError as exc:
        return _describe(f"{kind} {method}", exc)
    return []


HTTP_STATUS_OF_ERRORS = {-32601: 404, -32020: 400}
"""2026-07-28, Streamable HTTP, Request Metadata: a method the server does not implement MUST be answered
``404 Not Found`` with JSON-RPC error -32601; a header that does not match the body (HeaderMismatch, -32020)
``400 Bad Request``."""


def http_status_violations(response: Any, status: int | None, version: str) -> list[str]:
    """Where a 2026-07-28 JSON-RPC error came with another HTTP status than that revision maps its code to."""
    if version != MODERN_VERSION or status is None or not isinstance(response, dict):
        return []
    error = response.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    wanted = HTTP_STATUS_OF_ERRORS.get(code) if isinstance(code, int) and not isinstance(code, bool) else None
    if wanted is None or status == wanted:
        return []
    return [
        f"JSON-RPC error {code} came with HTTP {status}: revision {MODERN_VERSION} sends it with HTTP {wanted}"
        " (Streamable HTTP, Request Metadata)"
    ]
