"""ccweb_list_user_inputs as a team would write it on its first try with fastmcp.

Written from the living spec only (docs/SPEC.md, spec/ccweb_spec/tool.json and the
schemas), with fastmcp's high-level API: one ``@mcp.tool`` function with typed,
``Field``-bounded parameters that returns a dict, served over stdio. Errors are raised
as ``ToolError`` carrying the contract's error object as JSON, the way fastmcp's
documentation signals a tool error.

Deliberately left as a first try: fastmcp validates the arguments itself (pydantic,
lax mode) before this code runs, so its own error text answers a bad argument and
"15" is coerced to 15. See README.md: the point is to see what the conformance
runner blames, not to pass it.

Environment: CC_WEB_SESSIONS_DIR (the sessions directory), CCWEB_SESSION_ID (the
source conversation, read once at start).
"""

from __future__ import annotations

import json
import os
import re
from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field

SESSIONS_DIR = os.environ.get("CC_WEB_SESSIONS_DIR", "")
SOURCE_ID = os.environ.get("CCWEB_SESSION_ID")

DESCRIPTION = (
    "Read-only. Returns the latest user inputs of a cc-web conversation, by default the"
    " current conversation (the one this agent runs in); pass conversationId to read"
    " another one. By default it returns the latest 15 user inputs, at most 1,000"
    " characters (Unicode code points) in total, ordered oldest to newest; when the"
    " budget runs out the oldest returned input is cut and marked truncated. Use it to"
    " check your work against the user's requirements, as the user actually stated"
    " them, before you implement or sign off."
)

# ECMAScript String.prototype.trim's whitespace (docs/SPEC.md, "Whitespace").
WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

mcp = FastMCP("ccweb")


def fail(code: str, message: str, field: str | None = None) -> ToolError:
    """The contract's error object, as the text of a fastmcp tool error."""
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return ToolError(json.dumps({"ok": False, "error": error}))


def clean(raw: str) -> str:
    """Delete every character outside [A-Za-z0-9-]."""
    return re.sub(r"[^A-Za-z0-9-]", "", raw)


def load_messages(conversation_id: str) -> list[Any]:
    """The stored messages of a conversation, or a ToolError."""
    base = os.path.realpath(SESSIONS_DIR)
    path = os.path.join(SESSIONS_DIR, conversation_id + ".json")
    try:
        if not os.path.isfile(path):
            raise fail("conversation_not_found", f"No conversation {conversation_id}")
        target = os.path.realpath(path)
    except OSError:
        raise fail("conversation_not_found", f"No conversation {conversation_id}") from None
    if os.path.commonpath([base, target]) != base:
        raise fail("conversation_not_found", f"No conversation {conversation_id}")
    try:
        with open(target, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8-sig"))
    except (OSError, ValueError):
        raise fail("conversation_unreadable", f"Cannot read {conversation_id}") from None
    if not isinstance(data, dict):
        raise fail("conversation_unreadable", f"{conversation_id} is not an object")
    messages = data.get("messages")
    if messages is None:
        return []
    if not isinstance(messages, list):
        raise fail("conversation_unreadable", f"{conversation_id}: messages is not an array")
    return messages


def stored_string(message: dict[str, Any], *keys: str) -> str | None:
    """The first of keys holding a non-empty string, else None."""
    for key in keys:
        value = message.get(key)
        if isinstance(value, str) and value:
            return value
    return None


@mcp.tool(
    name="ccweb_list_user_inputs",
    title="List user inputs",
    description=DESCRIPTION,
    annotations={
        "title": "List user inputs",
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    meta={"dev.ccweb/contract-version": "1.0.0"},
)
def ccweb_list_user_inputs(
    conversationId: Annotated[
        str | None,
        Field(
            description="The cc-web conversation to read. Omit it to read the conversation"
            " this agent runs in. Characters outside A-Z, a-z, 0-9 and '-' are removed"
            " before lookup."
        ),
    ] = None,
    limit: Annotated[
        int,
        Field(
            ge=1,
            le=50,
            description="How many of the latest user inputs to consider (1-50, default 15).",
        ),
    ] = 15,
    maxChars: Annotated[
        int,
        Field(
            ge=1,
            le=1000,
            description="Budget for the total length of all returned contents, in Unicode"
            " code points (1-1000, default 1000).",
        ),
    ] = 1000,
) -> dict[str, Any]:
    """List the latest user inputs of a cc-web conversation."""
    if conversationId is not None:
        conversation_id = clean(conversationId)
        if not conversation_id:
            raise fail("invalid_conversation_id", "conversationId is empty after cleaning")
    else:
        conversation_id = clean(SOURCE_ID or "")
        if not conversation_id:
            raise fail("missing_source_conversation", "No source conversation is bound")

    messages = load_messages(conversation_id)
    candidates = [
        m
        for m in messages
        if isinstance(m, dict)
        and m.get("role") == "user"
        and isinstance(m.get("content"), str)
        and m["content"].strip(WHITESPACE)
    ]
    window = candidates[-limit:]
    has_more = len(candidates) > len(window)

    items: list[dict[str, Any]] = []
    left = maxChars
    for message in reversed(window):
        if left == 0:
            has_more = True
            break
        content = message["content"]
        original = len(content)
        truncated = original > left
        if truncated:
            content = content[:left]
            has_more = True
        items.append(
            {
                "messageId": stored_string(message, "id"),
                "createdAt": stored_string(message, "timestamp", "createdAt"),
                "content": content,
                "contentChars": len(content),
                "originalChars": original,
                "truncated": truncated,
            }
        )
        left -= len(content)
        if truncated:
            break
    items.reverse()

    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": limit,
        "maxChars": maxChars,
        "totalChars": maxChars - left,
        "returnedCount": len(items),
        "hasMore": has_more,
        "items": items,
    }


if __name__ == "__main__":
    mcp.run()
