"""End of input after a cancelled call: the stdio loop does not wait for an answer MCP says never comes."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from ccweb_reference import stdio
from ccweb_reference.server import Binding, build_server
from ccweb_reference.store import SessionStore

GUARD_S = 120.0
"""A bound that only catches the loop waiting for the cancelled answer (a guard, not a speed check)."""


def _lines(conversation_id: str) -> list[str]:
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    call = {"name": "ccweb_list_user_inputs", "arguments": {"conversationId": conversation_id}}
    return [
        json.dumps(message) + "\n"
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "user"}},
        )
    ]


def test_a_cancelled_call_is_not_awaited_at_the_end_of_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call on an unreadable file keeps re-reading for 200 ms (D-14); it is cancelled at once and stdin closes.
    The loop ends without an answer to it, though the drain would wait an hour (DRAIN_S raised here)."""
    (tmp_path / "torn.json").write_bytes(b'{"messages": [')
    monkeypatch.setattr(stdio, "DRAIN_S", 3600.0)
    server = build_server(SessionStore(tmp_path), Binding(fixed_source=None))
    written: list[dict[str, object]] = []

    async def lines() -> AsyncIterator[str]:
        for line in _lines("torn"):
            yield line

    async def main() -> None:
        with anyio.fail_after(GUARD_S):
            await stdio.serve_lines(server, lines(), lambda data: written.append(json.loads(data)))

    anyio.run(main)
    assert [message.get("id") for message in written] == [1]  # initialize answered, the cancelled call not
