"""One generated case: a conversation, how it is stored, and the arguments of the call."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ccweb_conformance.fixtures.conversations import cc_web_session, session_bytes


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""An argument left out of the call."""
BOM: Final = b"\xef\xbb\xbf"

Storage = Literal[
    "pretty", "raw", "compact", "bom", "surrogate bytes", "null messages", "no messages", "nan field", "dangling link"
]
"""How the file is written: ``pretty`` escapes every non-ASCII character; ``raw`` and ``compact`` are
``JSON.stringify(session, null, 2)`` and ``JSON.stringify(session)`` as cc-web writes them (raw UTF-8,
a lone surrogate escaped); ``surrogate bytes`` writes a lone surrogate's three bytes (not UTF-8);
``dangling link`` writes no file: ``<id>.json`` is a symbolic link to a name nothing holds (D-7)."""
@dataclass(frozen=True)
class IdPlan:
    """The conversationId sent: the fixture's ID with noise around it, or a literal value."""

    prefix: str = ""
    suffix: str = ""
    literal: Any = ABSENT

    def value(self, conversation_id: str) -> Any:
        """The argument value for a fixture stored under ``conversation_id``."""
        return f"{self.prefix}{conversation_id}{self.suffix}" if self.literal is ABSENT else self.literal


@dataclass(frozen=True)
class FuzzCase:
    """Everything one call needs, independent of the fixture's ID."""

    messages: list[Any]
    storage: Storage
    conversation_id: IdPlan = field(default_factory=IdPlan)
    limit: Any = ABSENT
    max_chars: Any = ABSENT
    unknown_argument: Any = ABSENT

    def arguments(self, conversation_id: str) -> dict[str, Any]:
        """The tools/call arguments for a fixture stored under ``conversation_id``."""
        arguments = {"conversationId": self.conversation_id.value(conversation_id)}
        for name, value in (("limit", self.limit), ("maxChars", self.max_chars)):
            if value is not ABSENT:
                arguments[name] = value
        if isinstance(self.unknown_argument, str):
            arguments[self.unknown_argument] = 1
        return arguments

    def session(self, conversation_id: str) -> dict[str, Any]:
        """The stored session object."""
        if self.storage == "null messages":
            return cc_web_session(conversation_id, None, unused=self.messages)
        session = cc_web_session(conversation_id, self.messages)
        if self.storage == "no messages":
            del session["messages"]
            session["history"] = self.messages
        return session

    def link_target(self, conversation_id: str) -> str | None:
        """For a ``dangling link``, the missing file ``<id>.json`` points at (beside it); else None."""
        return f"{conversation_id}-moved.json" if self.storage == "dangling link" else None

    def file_bytes(self, conversation_id: str) -> bytes:
        """The conversation file's bytes, as cc-web (or an editor) would have written them."""
        session = self.session(conversation_id)
        if self.storage in ("raw", "compact"):  # Node's JSON.stringify, 2-space or compact
            return session_bytes(session, compact=self.storage == "compact")
        if self.storage == "surrogate bytes":
            return json.dumps(session, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
        if self.storage == "nan field":  # not JSON: the file is unreadable (STO-1)
            return session_bytes({**session, "score": float("nan")})
        return (BOM if self.storage == "bom" else b"") + session_bytes(session)

    def to_json(self, conversation_id: str = "<conversation id>") -> dict[str, Any]:
        """The case as JSON: the stored messages and the arguments."""
        return {"storage": self.storage, "messages": self.messages, "arguments": self.arguments(conversation_id)}
