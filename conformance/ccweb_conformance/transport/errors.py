"""The two ways driving an implementation can go wrong."""

from __future__ import annotations

from ccweb_conformance.transport.exchange import Exchange


class TargetError(Exception):
    """The implementation could not be started or reached (the CLI exits with code 2)."""


class ProtocolFailure(Exception):
    """The server misbehaved on one request: timeout, crash, garbage, wrong id, bad HTTP reply."""

    def __init__(self, message: str, exchange: Exchange | None = None, kind: str = "protocol") -> None:
        super().__init__(message)
        self.exchange = exchange
        """What was sent and what (if anything) came back."""
        self.kind = kind
        """timeout, closed, garbage, wrong-id, duplicate or http."""
