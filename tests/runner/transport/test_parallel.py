"""Calls in flight together (``transport/parallel.py``) through the client's public methods."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.suite.world import TOOL_NAME
from ccweb_conformance.transport.parallel import pipelined
from ccweb_conformance.transport.targets import InProcessTarget

CALLS = [{"conversationId": "first"}, {"conversationId": "second"}]


def test_prepared_calls_take_the_next_ids_and_are_not_sent(tmp_path: Path) -> None:
    with InProcessTarget(tmp_path, protocol="legacy") as target:
        client = target.client(None)  # initialize was request 1
        requests = client.prepared_calls(TOOL_NAME, CALLS)
        after = client.call_tool(TOOL_NAME, {"conversationId": "third"})
    assert requests == [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": TOOL_NAME, "arguments": CALLS[0]}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": TOOL_NAME, "arguments": CALLS[1]}},
    ]
    assert after.request is not None and after.request["id"] == 4


def test_pipelined_calls_are_answered_each_by_its_own_id_in_order(tmp_path: Path) -> None:
    with InProcessTarget(tmp_path, protocol="legacy") as target:
        exchanges = pipelined(target.client(None), TOOL_NAME, CALLS)
    assert [(e.request or {}).get("id") for e in exchanges] == [2, 3]
    assert [(e.response or {}).get("id") for e in exchanges] == [2, 3]
    assert [e.violations for e in exchanges] == [[], []]
