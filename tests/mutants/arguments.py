"""Mutants killed by scenarios of features/ccweb_features/arguments.feature."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from typing import Any

import mcp_types as types

from ccweb_reference import server
from ccweb_reference.core import ToolError
from mutants.patching import (
    _ORIGINAL_CALL_TOOL,
    _ORIGINAL_PARSE,
    _ORIGINAL_TARGET,
    _filter_incoming,
    _invalid,
    _rewrite_field,
    _text,
    _transform_call_result,
    _wrap_parse,
)
from mutants.registry import mutant


@mutant(
    "numeric_strings_coerced",
    "ARG-3",
    'Arguments of the wrong type are rejected, not coerced [limit-"20"]',
    'numeric strings are coerced ("20" -> 20)',
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            value = arguments.get(name)
            if isinstance(value, str) and value.strip().isdigit():
                arguments[name] = int(value)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "booleans_as_integers",
    "ARG-3",
    "Arguments of the wrong type are rejected, not coerced [limit-true]",
    "true and false are taken as 1 and 0",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            if isinstance(arguments.get(name), bool):
                arguments[name] = int(arguments[name])
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "fraction_rejected",
    "ARG-3",
    "An integral number written with a fraction is an integer",
    "15.0 is rejected as not an integer",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            if isinstance(arguments.get(name), float):
                raise _invalid(name)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "unknown_arguments_ignored",
    "ARG-4",
    "An unknown argument is rejected and named",
    "unknown properties are dropped instead of rejected",
)
def _() -> None:
    known = set(server.TOOL["inputSchema"]["properties"])
    _wrap_parse(lambda a: _ORIGINAL_PARSE({k: v for k, v in a.items() if k in known}))


@mutant(
    "error_field_missing",
    "ARG-5",
    'Arguments of the wrong type are rejected, not coerced [limit-"15"]',
    "invalid_arguments errors carry no field",
)
def _() -> None:
    _rewrite_field(lambda field: None)


@mutant(
    "empty_field_name_dropped",
    "ARG-4",
    "An unknown argument with an empty name is rejected and named",
    'an unknown argument named "" is rejected without error.field (an empty string taken as no name)',
)
def _() -> None:
    _rewrite_field(lambda field: field or None)


@mutant(
    "error_field_as_pointer",
    "ARG-5 ARG-4",
    "An unknown argument is rejected and named",
    'error.field is a JSON pointer ("/limit") instead of the argument name',
)
def _() -> None:
    _rewrite_field(lambda field: f"/{field}")


@mutant(
    "conversation_checked_first",
    "ARG-5",
    "Arguments are checked before the conversation ID",
    "the conversation ID and the file are checked before the arguments",
)
def _() -> None:
    def call_tool(store_: Any, arguments: Any, source: str | None) -> tuple[dict[str, Any], bool]:
        explicit = arguments.get("conversationId") if isinstance(arguments, Mapping) else None
        try:
            store_.read_messages(_ORIGINAL_TARGET(explicit if isinstance(explicit, str) else None, source))
        except ToolError as error:
            return error.to_object(), True
        return _ORIGINAL_CALL_TOOL(store_, arguments, source)

    server.call_tool = call_tool  # type: ignore[assignment]


def _rewrite_call_arguments(change: Any) -> None:
    """Below the SDK: replace the raw ``arguments`` of every tools/call before it is validated."""
    import mcp_types as types  # noqa: PLC0415
    from mcp.shared.message import SessionMessage  # noqa: PLC0415

    def incoming(item: Any) -> Any:
        message = getattr(item, "message", None)
        if not (isinstance(message, types.JSONRPCRequest) and message.method == "tools/call"):
            return item
        params = message.params
        if not isinstance(params, dict) or "arguments" not in params:
            return item
        changed = {**params, "arguments": change(params["arguments"])}
        return SessionMessage(message.model_copy(update={"params": changed}))

    _filter_incoming(incoming)


@mutant(
    "non_object_arguments_as_none",
    "ARG-6",
    "Arguments that are not an object are rejected, and the server keeps serving",
    "arguments that are not an object ([], 5, \"x\") are taken as no arguments and read the source",
)
def _() -> None:
    _rewrite_call_arguments(lambda value: value if isinstance(value, dict) else {})


@mutant(
    "string_arguments_parsed",
    "ARG-6",
    "Arguments that are not an object are rejected, and the server keeps serving",
    "arguments sent as a JSON string are parsed into an object (json.loads on the string)",
)
def _() -> None:
    def parse(value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value

    _rewrite_call_arguments(parse)


@mutant(
    "string_values_pre_parsed",
    "ARG-7",
    "A conversationId holding JSON text is cleaned, never parsed",
    "string argument values that parse as JSON are replaced by the parsed value (an SDK's pre-parsing)",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name, value in list(arguments.items()):
            if isinstance(value, str):
                with contextlib.suppress(ValueError):
                    arguments[name] = json.loads(value)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "null_string_reads_source",
    "ARG-7 SRC-4",
    "A conversationId that reads like another JSON value is a string, cleaned like any other"
    " [null-conversation_not_found]",
    'conversationId "null" or "None" is taken as no conversationId (str | None coercion) and reads the source',
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        if arguments.get("conversationId") in ("null", "None"):
            del arguments["conversationId"]
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "sdk_validation_text",
    "ARG-3 ERR-1",
    "Arguments of the wrong type are rejected, not coerced",
    "invalid arguments are answered with the SDK's own validation text (isError, no contract object)",
)
def _() -> None:
    def call_tool(store_: Any, arguments: Any, source: str | None) -> tuple[dict[str, Any], bool]:
        result, is_error = _ORIGINAL_CALL_TOOL(store_, arguments, source)
        if is_error and result["error"]["code"] == "invalid_arguments":
            return {"text": "1 validation error for call_toolArguments\nlimit\n  Input should be a valid integer"}, True
        return result, is_error

    server.call_tool = call_tool  # type: ignore[assignment]


@mutant(
    "integer_id_coerced_to_string",
    "ARG-3",
    "A conversationId that is not a string is rejected",
    "a number as conversationId is coerced to its string (pydantic lax mode: 42 -> \"42\")",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        value = arguments.get("conversationId")
        if isinstance(value, int | float) and not isinstance(value, bool):
            arguments["conversationId"] = str(value)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


V2_VALIDATION_TEXT = (
    "Input validation error: Invalid arguments for tool ccweb_list_user_inputs: "
    '[{"code": "invalid_type", "expected": "integer", "path": ["limit"], "message": "Invalid input"}]'
)
"""What the TypeScript SDK v2's McpServer answers when a tool's input schema rejects the arguments."""


@mutant(
    "sdk_v2_validation_text",
    "PLC-1",
    "Arguments of the wrong type are rejected, not coerced",
    "invalid arguments are answered as the TypeScript SDK v2 answers a failed input schema: a plain-text "
    "isError result, no structuredContent, no code (D-13 note)",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        error = (result.structured_content or {}).get("error")
        if result.is_error and isinstance(error, dict) and error.get("code") == "invalid_arguments":
            return types.CallToolResult(content=[_text(V2_VALIDATION_TEXT)], is_error=True)
        return result

    _transform_call_result(transform)
