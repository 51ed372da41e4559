"""A channel wrapper that times each round trip on the wire, and nothing of the client's own work."""

from __future__ import annotations

import time
from collections.abc import Mapping

from ccweb_conformance.transport.channel import Answerer, Channel, Reply, Wait


class TimedChannel(Channel):
    """Sends through ``inner`` and keeps how long the last send took (seconds).

    The client's JSON encoding and its MCP schema check of the reply fall outside the time.
    """

    def __init__(self, inner: Channel) -> None:
        self.inner = inner
        self.label = inner.label
        self.strays = inner.strays
        self.last_seconds = 0.0

    def send(self, text: str, *, wait: Wait, headers: Mapping[str, str], timeout: float, answer: Answerer) -> Reply:
        """Send through the wrapped channel, timing it."""
        started = time.perf_counter()
        try:
            return self.inner.send(text, wait=wait, headers=headers, timeout=timeout, answer=answer)
        finally:
            self.last_seconds = time.perf_counter() - started

    def stderr_tail(self, lines: int = 20) -> str:
        """The wrapped channel's stderr tail."""
        return self.inner.stderr_tail(lines)

    def close(self) -> None:
        """Close the wrapped channel."""
        self.inner.close()
