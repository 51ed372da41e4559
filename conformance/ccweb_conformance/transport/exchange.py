"""What the runner sent and received, kept for failure reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exchange:
    """One JSON-RPC request and what came back for it, as seen on the wire."""

    request: dict[str, Any] | None
    """The JSON-RPC message sent (None when raw text was sent, see ``sent_text``)."""
    response: dict[str, Any] | None
    """The JSON-RPC response that answered it (None if none came)."""
    received_text: str = ""
    """The raw text received for it (a stdio line, an HTTP body), cut to a readable size."""
    sent_text: str | None = None
    """Raw text sent instead of a JSON-RPC object (robustness scenarios)."""
    elapsed_ms: float = 0.0
    violations: list[str] = field(default_factory=list)
    """Where what came back breaks the MCP schema of the negotiated revision."""
    http_status: int | None = None
    content_type: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready copy for reports."""
        return {
            "request": self.request,
            "sentText": self.sent_text,
            "response": self.response,
            "receivedText": self.received_text,
            "elapsedMs": round(self.elapsed_ms, 3),
            "violations": list(self.violations),
            "httpStatus": self.http_status,
            "contentType": self.content_type,
        }
