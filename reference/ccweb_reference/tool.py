"""One tool call, transport-free: arguments + source binding + store -> result object."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ccweb_reference.arguments import parse_arguments
from ccweb_reference.cache import settled
from ccweb_reference.core import ToolError, list_user_inputs
from ccweb_reference.store import SessionStore, StoredMessages, clean_id


def target_conversation(explicit: str | None, source: str | None) -> str:
    """The cleaned ID to read: the explicit one, else the source (SRC-3 ... SRC-5)."""
    if explicit is not None:
        cleaned = clean_id(explicit)
        if not cleaned:
            raise ToolError(
                "invalid_conversation_id", "conversationId is empty after removing characters outside [A-Za-z0-9-]"
            )
        return cleaned
    cleaned = clean_id(source or "")
    if not cleaned:
        raise ToolError(
            "missing_source_conversation", "no conversationId was given and no source conversation is bound"
        )
    return cleaned


def call_tool(
    store: SessionStore, arguments: Mapping[str, Any] | None, source: str | None
) -> tuple[dict[str, Any], bool]:
    """The result object and whether it is an error. Checks run in D-6 order."""
    try:
        parsed = parse_arguments(arguments)
        conversation_id = target_conversation(parsed.conversation_id, source)
        version = store.version(conversation_id)
        key = (conversation_id, version, parsed.limit, parsed.max_chars)
        cached = store.results.get(key) if version is not None else None
        if cached is not None:
            return cached, False
        with store.read_budget.hold(version[2] if version is not None else 0):  # the messages keep the bytes alive
            messages = store.read_messages(conversation_id)
            # the version of the descriptor read (a read_messages patched in a test may give a plain list: no caching)
            read = messages.version if isinstance(messages, StoredMessages) else None
            result = list_user_inputs(conversation_id, messages, parsed.limit, parsed.max_chars)
            del messages
        if read is not None and settled(read) and store.version(conversation_id) == read:
            # keyed on the file the result was read from, and that file is still the conversation's
            store.results.put((conversation_id, read, parsed.limit, parsed.max_chars), result)
        return result, False
    except ToolError as error:
        return error.to_object(), True
