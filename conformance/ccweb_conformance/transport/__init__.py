"""The runner's raw transport layer: spawn or reach an implementation, speak JSON-RPC to it.

Public surface: :mod:`.client` (McpClient, OMIT) and :mod:`.targets` (StdioTarget,
HttpCommandTarget, HttpUrlTarget, InProcessTarget, reference_command), and the two errors
driving an implementation can end in (TargetError, ProtocolFailure), which live with the rest
of the runner's errors in :mod:`ccweb_conformance.errors`. The other modules are internals.
"""

from ccweb_conformance.errors import ProtocolFailure, TargetError
from ccweb_conformance.transport.client import OMIT, Era, McpClient, ProtocolMode
from ccweb_conformance.transport.targets import (
    HttpCommandTarget,
    HttpUrlTarget,
    InProcessTarget,
    StdioTarget,
    Target,
    reference_command,
)

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
