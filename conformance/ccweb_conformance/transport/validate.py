"""Checks received messages against the MCP schema of a revision, with the SDK's own validators."""

from __future__ import annotations

from typing import Any

from mcp_types import jsonrpc_message_adapter
from mcp_types.methods import parse_server_notification, parse_server_request, validate_server_result
from pydantic import ValidationError

MAX_ERRORS = 10


def _describe(where: str, error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors()[:MAX_ERRORS]:
        location = ".".join(str(part) for part in item["loc"]) or "(root)"
        problems.append(f"{where}: {location}: {item['msg']}")
    return problems


def message_violations(message: Any, *, version: str, method: str | None) -> list[str]:
    """Where ``message`` breaks the MCP schema at ``version``.

    ``method`` is the method of the request a response answers (None when unknown, e.g. raw text).
    """
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        return _describe("JSON-RPC envelope", exc)
    if not isinstance(message, dict):
        return []
    if "method" in message:
        return _request_violations(message, version)
    if "result" in message and method is not None:
        try:
            validate_server_result(method, version, message["result"])
        except KeyError:
            return []  # the schema defines no result for this method at this version
        except ValidationError as exc:
            return _describe(f"{method} result", exc)
    return []


def _request_violations(message: dict[str, Any], version: str) -> list[str]:
    method, params = message["method"], message.get("params")
    is_request = "id" in message
    kind = "server request" if is_request else "notification"
    try:
        if is_request:
            parse_server_request(method, version, params)
        else:
            parse_server_notification(method, version, params)
    except KeyError:
        return [f"{kind} {method!r} is not defined for servers at {version}"] if is_request else []
    except ValidationError as exc:
        return _describe(f"{kind} {method}", exc)
    return []
