"""The runner's raw transport layer: spawn or reach an implementation, speak JSON-RPC to it.

Public surface: :mod:`.client` (McpClient, OMIT) and :mod:`.targets` (StdioTarget,
HttpCommandTarget, HttpUrlTarget, InProcessTarget, reference_command), and the two errors
driving an implementation can end in (TargetError, ProtocolFailure), which live with the rest
of the runner's errors in :mod:`ccweb_conformance.errors`. The other modules are internals.

Nothing is imported until a name is used (the MCP schema behind the client costs a second to
import): ``from ccweb_conformance.transport import McpClient`` imports the client then, and
``from ccweb_conformance.transport import signals`` only the signal handling.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "OMIT",
    "Era",
    "HttpCommandTarget",
    "HttpUrlTarget",
    "InProcessTarget",
    "McpClient",
    "ProtocolFailure",
    "ProtocolMode",
    "StdioTarget",
    "Target",
    "TargetError",
    "reference_command",
]

_HOME = {
    "OMIT": "client",
    "Era": "client",
    "McpClient": "client",
    "ProtocolMode": "client",
    "HttpCommandTarget": "targets",
    "HttpUrlTarget": "targets",
    "InProcessTarget": "targets",
    "StdioTarget": "targets",
    "Target": "targets",
    "reference_command": "targets",
}
"""Public name -> the module of this package that defines it."""


def __getattr__(name: str) -> Any:
    if name in ("ProtocolFailure", "TargetError"):
        return getattr(importlib.import_module("ccweb_conformance.errors"), name)
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
