"""Allowed variants of the reference: different but conforming implementations that must pass."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types

import ccweb_spec
from ccweb_reference import wire
from mutants.patching import (
    _ORIGINAL_PARSE,
    Reply,
    _add_extras,
    _core,
    _edit_tool,
    _filter_incoming,
    _invalid,
    _result,
    _reverse_keys,
    _text,
    _transform_call_result,
    _wrap_call_tool,
    _wrap_parse,
)
from mutants.registry import variant


@variant("reference", "the reference itself, unchanged")
def _() -> None:
    pass


@variant("reimplemented_core", "the budget walk re-implemented (the runner's walk of catalogued mistakes, as is)")
def _() -> None:
    _core()


@variant(
    "text_only",
    "the result object only as JSON text, no structuredContent, and so no outputSchema (PLC-4)",
    warnings="PLC-3 TOOL-5",
)
def _() -> None:
    _edit_tool(lambda definition: definition.pop("outputSchema"))
    _transform_call_result(lambda r: types.CallToolResult(content=r.content, is_error=r.is_error))


@variant("structured_only", "the result object only as structuredContent, no content blocks", warnings="PLC-3")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[]))


@variant("is_error_omitted_on_success", "successes leave isError out instead of sending false")
def _() -> None:
    # The SDK always writes isError, so the member is dropped where the JSON-RPC line is written
    # (stdio and in-process both write through wire.dumps; the runner's requests have no result).
    original = wire.dumps

    def dumps(value: Any) -> str:
        result = value.get("result") if isinstance(value, dict) else None
        if isinstance(result, dict) and result.get("isError") is False:
            value = {**value, "result": {k: v for k, v in result.items() if k != "isError"}}
        return original(value)

    wire.dumps = dumps


@variant("pretty_json_text", "the JSON text is pretty-printed and ASCII-escaped")
def _() -> None:
    _transform_call_result(
        lambda r: _result(r, content=[_text(json.dumps(r.structured_content, indent=2, ensure_ascii=True))])
    )


@variant("extra_fields", "extra fields in the result object, in items and in error objects")
def _() -> None:
    _wrap_call_tool(lambda outcome, arguments: (_add_extras(outcome[0]), outcome[1]))


@variant("reversed_key_order", "every object's keys in reverse order")
def _() -> None:
    _wrap_call_tool(lambda outcome, arguments: (_reverse_keys(outcome[0]), outcome[1]))


@variant("extra_prose_block", "a prose text block beside the JSON text block")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[_text("Here are the user's inputs:"), *r.content]))


@variant("extra_non_object_json_block", "a text block holding JSON that is not an object (a list) beside the result")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[*r.content, _text('["see the JSON above"]')]))


@variant(
    "initialize_era_only",
    "an initialize-era server: server/discover is answered -32601 before the SDK sees it, so auto falls back",
)
def _() -> None:
    # Overriding the SDK's server/discover handler is not enough: the SDK commits the
    # connection to 2026-07-28 on the request's envelope and then refuses initialize. An older
    # server never gets that far, so the variant answers the probe below the SDK.
    def refuse_discover(item: Any) -> Any:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest) and message.method == "server/discover":
            error = types.ErrorData(code=-32601, message="Method not found")
            return Reply(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
        return item

    _filter_incoming(refuse_discover)


@variant("fraction_echoed", "an integral fraction (2.0) is echoed as given, 2.0, not 2")
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if not is_error and isinstance(arguments, Mapping):
            for name, echo in (("limit", "requestedLimit"), ("maxChars", "maxChars")):
                if isinstance(arguments.get(name), float):
                    result[echo] = float(arguments[name])
        return result, is_error

    _wrap_call_tool(wrap)


@variant("error_wording", "different error messages (another language)")
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if is_error:
            result["error"]["message"] = f"Fehler ({result['error']['code']}): Aufruf abgelehnt"
        return result, is_error

    _wrap_call_tool(wrap)


@variant("last_offending_field", "with several wrong arguments, error.field names the last one alphabetically")
def _() -> None:
    validator = ccweb_spec.validator("input")

    def parse(arguments: dict[str, Any]) -> Any:
        fields = sorted(str(e.path[0]) for e in validator.iter_errors(arguments) if e.path)
        if len(fields) > 1:
            raise _invalid(fields[-1])
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@variant("different_meta", "extra keys in the tool's _meta and a _meta on every call result")
def _() -> None:
    _edit_tool(lambda t: t["_meta"].update({"com.example/build": "abc123", "com.example/flags": ["x"]}))
    _transform_call_result(lambda r: _result(r, meta={"com.example/elapsedMs": 3}))


@variant("minimal_annotations", "only readOnlyHint among the annotations, no title")
def _() -> None:
    def edit(definition: dict[str, Any]) -> None:
        definition["annotations"] = {"readOnlyHint": True}
        definition.pop("title", None)

    _edit_tool(edit)


def _fffd(value: Any) -> Any:
    """``value`` with every lone surrogate replaced by U+FFFD, as pydantic-core writes JSON."""
    if isinstance(value, str):
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    if isinstance(value, list):
        return [_fffd(v) for v in value]
    if isinstance(value, dict):
        return {k: _fffd(v) for k, v in value.items()}
    return value


@variant(
    "lone_surrogate_as_fffd",
    "a lone surrogate comes back as U+FFFD, still counted 1 (a JSON writer that cannot carry one, D-3)",
    warnings="UNI-4",
)
def _() -> None:
    _wrap_call_tool(lambda outcome, arguments: (_fffd(outcome[0]), outcome[1]))


@variant(
    "sdk_internal_error",
    "non-object arguments answered -32603 before the tool runs, as the official TypeScript SDK does (D-13)",
    warnings="ARG-8",
)
def _() -> None:
    def internal_error(item: Any) -> Any:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest) and message.method == "tools/call":
            params = message.params
            value = params.get("arguments", {}) if isinstance(params, Mapping) else {}
            if value is not None and not isinstance(value, Mapping):
                error = types.ErrorData(code=-32603, message="Invalid tools/call request")
                return Reply(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
        return item

    _filter_incoming(internal_error)


@variant(
    "unknown_tool_method_not_found",
    "an unknown tool name answered -32601 (method not found) by the framework's own handler, as fastmcp for"
    " TypeScript does (D-9 as amended)",
    warnings="ERR-4",
)
def _() -> None:
    def method_not_found(item: Any) -> Any:
        message = getattr(item, "message", None)
        if isinstance(message, types.JSONRPCRequest) and message.method == "tools/call":
            params = message.params
            name = params.get("name") if isinstance(params, Mapping) else None
            if isinstance(name, str) and name != ccweb_spec.TOOL_NAME:
                error = types.ErrorData(code=-32601, message=f"Unknown tool: {name}")
                return Reply(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
        return item

    _filter_incoming(method_not_found)
