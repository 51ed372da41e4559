"""The expected answer, from the reference's own functions (the oracle); nothing restated here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ccweb_reference import core
from ccweb_reference.arguments import parse_arguments
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import target_conversation


@dataclass(frozen=True)
class Expected:
    """What the contract requires: the object to compare (errors: only the code) and isError."""

    result: dict[str, Any]
    is_error: bool


def expected_answer(arguments: Mapping[str, Any], store: SessionStore) -> Expected:
    """The reference core's answer for these arguments on the files in ``store`` (no source bound)."""
    try:
        parsed = parse_arguments(arguments)
        conversation_id = target_conversation(parsed.conversation_id, None)
        messages = store.read_messages(conversation_id)
        return Expected(core.list_user_inputs(conversation_id, messages, parsed.limit, parsed.max_chars), False)
    except core.ToolError as error:
        return Expected({"ok": False, "error": {"code": error.code}}, True)
