"""The runner's raw transport layer: spawn or reach an implementation, speak JSON-RPC to it.

The client lives in :mod:`.client` (McpClient, OMIT), the implementations under test in :mod:`.targets`
(StdioTarget, HttpCommandTarget, HttpUrlTarget, InProcessTarget, reference_command), and the two errors
driving an implementation can end in (TargetError, ProtocolFailure) with the rest of the runner's errors in
:mod:`ccweb_conformance.errors`. Importing this package imports none of them (the MCP schema behind the client
costs a second to import).
"""
