"""Mutants killed by scenarios of features/ccweb_features/arguments.feature."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ccweb_reference import server
from ccweb_reference.core import ToolError
from mutants.patching import (
    _ORIGINAL_CALL_TOOL,
    _ORIGINAL_PARSE,
    _ORIGINAL_TARGET,
    _invalid,
    _rewrite_field,
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
