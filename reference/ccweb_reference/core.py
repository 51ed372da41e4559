"""The pure core: stored messages + limit + maxChars -> the success object. No I/O.

Each rule cites its requirement ID in ``spec/requirements.yaml``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ccweb_spec

_WHITESPACE = ccweb_spec.whitespace()


class ToolError(Exception):
    """A contract error: becomes ``{"ok": false, "error": {...}}`` with ``isError: true``."""

    def __init__(self, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def to_object(self) -> dict[str, Any]:
        """The error result object (D-9)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.field is not None:
            error["field"] = self.field
        return {"ok": False, "error": error}


MESSAGE_EXCERPT = 80
"""Code points of caller-supplied text an error message may quote."""


def excerpt(text: str) -> str:
    """``text`` cut for quoting in an error message, so a huge input never makes a huge answer."""
    return text if len(text) <= MESSAGE_EXCERPT else f"{text[:MESSAGE_EXCERPT]}... ({len(text)} characters)"


@dataclass(frozen=True)
class Candidate:
    """A stored user message that counts as an input (SEL-1)."""

    content: str
    message_id: str | None
    created_at: str | None


def is_blank(text: str) -> bool:
    """True if every character is ECMAScript whitespace (SEL-2)."""
    return all(ch in _WHITESPACE for ch in text)


def _non_empty_string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def candidate_of(message: Any) -> Candidate | None:
    """The candidate a stored message yields, or None when it is skipped (SEL-1, SEL-3)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    content = message.get("content")
    if not isinstance(content, str) or is_blank(content):
        return None
    created_at = _non_empty_string(message.get("timestamp")) or _non_empty_string(message.get("createdAt"))
    return Candidate(content, _non_empty_string(message.get("id")), created_at)  # RES-4, RES-5


def candidates(messages: Sequence[Any]) -> list[Candidate]:
    """All candidates, in stored order."""
    return [c for c in map(candidate_of, messages) if c is not None]


def _item(candidate: Candidate, content: str) -> dict[str, Any]:
    original = len(candidate.content)  # UNI-1: Python str length counts code points
    return {
        "messageId": candidate.message_id,
        "createdAt": candidate.created_at,
        "content": content,
        "contentChars": len(content),
        "originalChars": original,
        "truncated": len(content) < original,
    }


def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
    """The success object for ``messages`` under ``limit`` and ``max_chars`` (D-2, D-4).

    Messages are read newest first and only until ``limit`` candidates and one more are
    seen: older messages cannot change the result, beyond making ``hasMore`` true.
    """
    window: list[Candidate] = []  # newest first
    older_candidates = False
    for message in reversed(messages):
        candidate = candidate_of(message)
        if candidate is None:
            continue
        if len(window) == limit:  # SEL-6: a candidate outside the window
            older_candidates = True
            break
        window.append(candidate)
    remaining = max_chars
    newest_first: list[dict[str, Any]] = []
    for candidate in window:  # BUD-1: newest to oldest
        if remaining == 0:  # BUD-3: no empty item
            break
        if len(candidate.content) <= remaining:
            newest_first.append(_item(candidate, candidate.content))
            remaining -= len(candidate.content)
            continue
        newest_first.append(_item(candidate, candidate.content[:remaining]))  # BUD-2
        break
    items = newest_first[::-1]  # SEL-7: oldest to newest
    returned_in_full = sum(1 for item in items if not item["truncated"])
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": limit,
        "maxChars": max_chars,
        "totalChars": sum(item["contentChars"] for item in items),  # BUD-4
        "returnedCount": len(items),
        "hasMore": older_candidates or returned_in_full < len(window),  # RES-3
        "items": items,
    }
