"""The state of one scenario: its conversations, source binding and exchanges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.contract.conversations import ConversationFiles
from ccweb_conformance.contract.failures import fail
from ccweb_conformance.contract.ledger import SessionsLedger, fingerprints, listing, moved, runner_writing
from ccweb_conformance.contract.outcome import ToolOutcome, tool_outcome
from ccweb_conformance.transport.client import OMIT, McpClient
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.targets import Target

TOOL_NAME = ccweb_spec.TOOL_NAME


def snapshot(sessions_dir: Path, ours: list[Path]) -> dict[str, Any]:
    """Every name in the directory at any depth, and full fingerprints of our files and folders."""
    return {"names": sorted(listing(sessions_dir)), "fingerprints": fingerprints(sessions_dir, ours)}


@dataclass
class World:
    """One scenario's state, shared by its steps."""

    target: Target
    files: ConversationFiles
    ids: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    exchanges: list[Exchange] = field(default_factory=list)
    outcomes: list[ToolOutcome] = field(default_factory=list)
    tools_exchange: Exchange | None = None
    saved_snapshot: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    """The tool's declared outputSchema, listed once per run (PLC-4); None when it declares none."""
    ledger: SessionsLedger | None = None
    """What the sessions directory should hold (RO-2); None outside a run of the suite."""
    entry_watch: Any = None
    """The watcher of the sessions directory's entries, once a step started it (RO-2)."""
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    """Run when the scenario ends, last first (watchers the steps started)."""

    def client(self) -> McpClient:
        """The client for the current source binding."""
        return self.target.client(self.source)

    def record(self, exchange: Exchange) -> Exchange:
        """Keep an exchange for the transcript; any message breaking JSON-RPC or MCP fails the scenario (PROTO-1)."""
        self.exchanges.append(exchange)
        if exchange.violations:
            raise fail(
                "PROTO-1: a message received breaks JSON-RPC 2.0 or the MCP schema: "
                + "; ".join(exchange.violations[:5]),
                expected="valid JSON-RPC and MCP, the reply echoing the request id",
                actual=exchange.response if exchange.response is not None else exchange.received_text,
                exchange=exchange,
            )
        return exchange

    def call(self, arguments: Any = OMIT, name: str = TOOL_NAME) -> Exchange:
        """Call a tool and keep the exchange; RO-1 right after it: the scenario's files are as before the call."""
        if runner_writing():  # the runner's own saves are under way (D-14): nothing to compare, no time to lose
            return self.record(self.client().call_tool(name, arguments))
        root = self.target.sessions_dir
        before = fingerprints(root, self.files.created(), digest=False)  # times and inode: any write moves ctime
        exchange = self.record(self.client().call_tool(name, arguments))
        changed = moved(before, fingerprints(root, self.files.created(), digest=False))
        if changed and not runner_writing():
            raise fail(
                "RO-1: the call changed files of the sessions directory (the tool is read-only)",
                expected="identical bytes, size, mtime, ctime and inode",
                actual=changed,
                exchange=exchange,
            )
        return exchange

    def call_and_read(self, arguments: Any = OMIT) -> ToolOutcome:
        """Call the tool and read its result object (PLC-1, PLC-2)."""
        outcome = tool_outcome(self.call(arguments), self.output_schema)
        self.outcomes.append(outcome)
        return outcome

    def last_outcome(self) -> ToolOutcome:
        """The most recent tool result."""
        if not self.outcomes:
            raise AssertionError("the scenario made no tool call before this step")
        return self.outcomes[-1]


def audit_sessions_dir(world: World, when: str) -> None:
    """RO-2, whole: the sessions directory holds what was there before plus what the runner wrote."""
    if world.ledger is None:
        return
    audit = world.ledger.audit(contents=False)  # names now; contents once, in the whole-run audit
    if not audit.clean:
        raise fail(
            f"RO-2: the sessions directory holds entries the runner did not write ({when}); "
            "something the server did earlier in the run changed it",
            expected="only what was there before the run and the runner's own files",
            actual=audit.describe(),
            exchange=world.exchanges[-1] if world.exchanges else None,
        )


def declared_output_schema(target: Target) -> dict[str, Any] | None:
    """The outputSchema the tool declares in tools/list, or None (none declared, or no answer)."""
    try:
        response = target.client(None).list_tools().response or {}
    except Exception:  # the scenarios report a target that does not answer; PLC-4 then has nothing to check
        return None
    result = response.get("result")
    tools = result.get("tools") if isinstance(result, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, dict) and tool.get("name") == TOOL_NAME:
            schema = tool.get("outputSchema")
            return schema if isinstance(schema, dict) else None
    return None
