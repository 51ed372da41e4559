"""The state of one scenario: its conversations, source binding and exchanges."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.contract.conversations import ConversationFiles
from ccweb_conformance.contract.failures import fail
from ccweb_conformance.contract.ledger import SessionsLedger, listing
from ccweb_conformance.contract.outcome import ToolOutcome, tool_outcome
from ccweb_conformance.transport.client import OMIT, McpClient
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.transport.toollist import ToolListing, list_all_tools

TOOL_NAME = ccweb_spec.TOOL_NAME


@dataclass(frozen=True)
class Fingerprint:
    """What must not change about one entry of the sessions directory."""

    kind: str
    size: int
    mtime_ns: int
    ctime_ns: int
    sha256: str


def fingerprint(path: Path) -> Fingerprint:
    """The fingerprint of a file, directory or link (links are not followed)."""
    info = os.lstat(path)
    digest = ""
    if stat.S_ISREG(info.st_mode):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    kind = "file" if stat.S_ISREG(info.st_mode) else "dir" if stat.S_ISDIR(info.st_mode) else "other"
    return Fingerprint(kind, info.st_size, info.st_mtime_ns, info.st_ctime_ns, digest)


def snapshot(sessions_dir: Path, ours: list[Path]) -> dict[str, Any]:
    """Every name in the directory at any depth, and full fingerprints of our files and folders."""
    names = sorted(listing(sessions_dir))
    prints: dict[str, Fingerprint] = {}
    for path in ours:
        entries = [path, *sorted(path.rglob("*"))] if path.is_dir() and not path.is_symlink() else [path]
        for entry in entries:
            prints[str(entry.relative_to(sessions_dir))] = fingerprint(entry)
    return {"names": names, "fingerprints": prints}


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
    tool_listing: ToolListing | None = None
    """Every page of the scenario's last tools/list (``tools_exchange`` is its last page)."""
    saved_snapshot: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    """The tool's declared outputSchema, listed once per run (PLC-4); None when it declares none."""
    ledger: SessionsLedger | None = None
    """What the sessions directory should hold (RO-2); None outside a run of the suite."""

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
        """Call a tool and keep the exchange."""
        return self.record(self.client().call_tool(name, arguments))

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
    audit = world.ledger.audit()
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
        listing = list_all_tools(target.client(None))
    except Exception:  # the scenarios report a target that does not answer; PLC-4 then has nothing to check
        return None
    for tool in listing.named(TOOL_NAME)[:1]:
        schema = tool.get("outputSchema")
        return schema if isinstance(schema, dict) else None
    return None
