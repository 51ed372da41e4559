"""Resource bounds of the HTTP server (:class:`HttpLimits`), and a log that cannot flood.

The bounds are enforced by :mod:`ccweb_reference.http_protocol` (connections) and the SDK's
session manager (legacy sessions). This module imports neither uvicorn nor the SDK, so the
command line can show the defaults without loading them. Every refusal is reported through
:class:`RateLimitedLog`: the first of each kind in full, then at most one line per kind and
interval, with the number left unsaid.
"""

from __future__ import annotations

import logging
import resource
import sys
import time
from dataclasses import dataclass
from typing import TextIO

LOGGER = logging.getLogger("ccweb_reference.http")
FD_RESERVE = 64
"""File descriptors kept free beside the connections: the listening socket, session files, logs."""


@dataclass(frozen=True)
class HttpLimits:
    """The bounds, each a ``ccweb-reference`` option (see ``--help``)."""

    header_timeout: float = 10.0
    body_timeout: float = 10.0
    min_body_rate: float = 1024.0
    idle_timeout: float = 5.0
    max_connections: int = 256
    max_header_bytes: int = 16_384
    max_sessions: int = 64
    session_idle_timeout: float = 300.0
    log_interval: float = 10.0


class RateLimitedLog(logging.Filter):
    """Passes the first record of each kind, then at most one per kind and ``interval`` seconds.

    A kind is the logger and the message template. A record that passes after others were
    held back says how many; a repeated record loses its traceback, so an error that repeats
    cannot flood the log.
    """

    def __init__(self, interval: float) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, str], float] = {}
        self._held: dict[tuple[str, str], int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, str(record.msg))
        now = time.monotonic()
        last = self._last.get(kind)
        if last is not None and now - last < self.interval:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        held = self._held.pop(kind, 0)
        if last is not None:
            record.exc_info = None
            record.exc_text = None
            record.stack_info = None
        if held:
            record.msg = f"{record.msg} ({held} more like this in the last {now - last:.0f} s)"  # type: ignore[operator]
        self._last[kind] = now
        return True


def install_log(
    interval: float, stream: TextIO | None = None, dropped: logging.Filter | None = None
) -> logging.Handler:
    """One stderr handler for every logger (uvicorn's, the SDK's, asyncio's), warnings and up, rate-limited.

    ``dropped`` judges each record first: what it refuses is neither written nor counted.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("ccweb-reference: %(levelname)s: %(message)s"))
    if dropped is not None:
        handler.addFilter(dropped)
    handler.addFilter(RateLimitedLog(interval))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp", "asyncio"):
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
    return handler


def fit_descriptors(max_connections: int) -> int:
    """The connection cap the process's file-descriptor limit allows, raising the soft limit if it can."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = max_connections + FD_RESERVE
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return max_connections
    fitted = max(1, soft - FD_RESERVE)
    LOGGER.warning("only %d file descriptors: serving at most %d connections", soft, fitted)
    return fitted
