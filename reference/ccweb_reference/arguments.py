"""Strict argument validation against the spec's input schema (D-6, ARG-1 ... ARG-5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import ValidationError, best_match

import ccweb_spec
from ccweb_reference.core import ToolError, excerpt

_INPUT_SCHEMA = ccweb_spec.schema("input")
_VALIDATOR = ccweb_spec.validator("input")
_PROPERTIES: Mapping[str, Any] = _INPUT_SCHEMA["properties"]


@dataclass(frozen=True)
class Arguments:
    """Validated arguments with defaults applied."""

    conversation_id: str | None
    limit: int
    max_chars: int


def _offending_field(error: ValidationError, arguments: Mapping[str, Any]) -> str:
    if error.validator == "additionalProperties":
        return sorted(name for name in arguments if name not in _PROPERTIES)[0]
    if error.path:
        return str(error.path[0])
    return sorted(arguments)[0] if arguments else "arguments"


def _effective(arguments: Mapping[str, Any], name: str) -> int:
    value = arguments.get(name, _PROPERTIES[name]["default"])
    return int(value)  # 15.0 is an integer in JSON Schema 2020-12; echo it as 15


def parse_arguments(arguments: Mapping[str, Any] | None) -> Arguments:
    """Validate the tool arguments, or raise ``invalid_arguments`` naming a field."""
    arguments = {} if arguments is None else arguments
    error = best_match(_VALIDATOR.iter_errors(arguments))
    if error is not None:
        field = _offending_field(error, arguments) if isinstance(arguments, Mapping) else "arguments"
        raise ToolError(
            "invalid_arguments", f"invalid argument {excerpt(field)!r}: {excerpt(error.message)}", field=field
        )
    conversation_id = arguments.get("conversationId")
    return Arguments(conversation_id, _effective(arguments, "limit"), _effective(arguments, "maxChars"))
