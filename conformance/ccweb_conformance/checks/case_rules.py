"""What a replayable case expects of one call, and what makes a scenario MCP-level (case_levels.yaml)."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

import ccweb_spec
from ccweb_conformance.checks.failures import ConformanceFailure
from ccweb_conformance.checks.outcome import tool_outcome
from ccweb_conformance.transport.client import OMIT
from ccweb_conformance.transport.exchange import Exchange

_LEVELS = ccweb_spec.case_levels()
MCP_LEVEL_REASONS: dict[str, str] = _LEVELS.reasons
"""Reason key -> sentence (case_levels.yaml)."""
INVALID_ARGUMENTS = "invalid_arguments"


def mcp_level_reason(name: str, arguments: Any) -> str | None:
    """Why a call cannot be made on the tool's function (another tool, non-object arguments), or None."""
    if name != ccweb_spec.TOOL_NAME:
        return MCP_LEVEL_REASONS["other-tool"]
    if arguments is not OMIT and not isinstance(arguments, dict):
        return MCP_LEVEL_REASONS["non-object-arguments"]
    return None


def offending_fields(arguments: dict[str, Any]) -> list[str]:
    """Every argument ``error.field`` may name (D-6: any one of them when several are wrong)."""
    schema = ccweb_spec.schema("input")
    properties: dict[str, Any] = schema.get("properties", {})
    offending = []
    for name, value in arguments.items():
        alone = {**schema, "properties": {name: properties[name]}, "required": []} if name in properties else None
        if alone is None or not Draft202012Validator(alone).is_valid({name: value}):  # unknown, or invalid alone
            offending.append(name)
    return sorted(offending)


def expected_object(exchange: Exchange) -> tuple[dict[str, Any] | None, str | None]:
    """What a harness must get for this call, from the reference's reply; or why it is MCP-level.

    A success is the whole object (extra members are allowed in what a harness gets). An error
    is its code and, for ``invalid_arguments``, every argument ``error.field`` may name.
    """
    response = exchange.response or {}
    if "error" in response:
        return None, MCP_LEVEL_REASONS["protocol-error"]
    try:
        outcome = tool_outcome(exchange)
    except ConformanceFailure:
        return None, MCP_LEVEL_REASONS["protocol-error"]
    result = outcome.result
    if result.get("ok") is True:
        return {"result": result}, None
    error = result.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    expected: dict[str, Any] = {"error": code}
    if code == INVALID_ARGUMENTS:
        sent = outcome.arguments
        expected["field"] = offending_fields(sent) if isinstance(sent, dict) else []
    return expected, None
