"""Every era by default (D-16): a tool call repeated in the other era must get the same answer.

When ``--protocol auto`` finds a server that speaks both eras, the scenarios run in the era
negotiation picked (2026-07-28) and every tool call they make is also sent, at the same time, in
the other era (``initialize``, the era clients use today), on a connection of its own with the
same source binding. The repeated call's reply is checked like any other (PROTO-1 against that
revision's schema, PLC-1/2/4 placement) and its answer must equal the first one, so every
check a scenario makes of an answer holds in both eras without running each scenario twice.
"""

from __future__ import annotations

from typing import Any

from ccweb_conformance.checks.outcome import ToolOutcome, contract_differences
from ccweb_conformance.transport.exchange import Exchange


def _is_protocol_error(exchange: Exchange) -> bool:
    return isinstance(exchange.response, dict) and "error" in exchange.response


def _answer(outcome: ToolOutcome) -> dict[str, Any]:
    """What two eras must agree on: ``isError`` and the result object, an error's free-text message aside."""
    result = dict(outcome.result)
    error = result.get("error")
    if isinstance(error, dict):
        result["error"] = {key: value for key, value in error.items() if key != "message"}
    return {"isError": outcome.is_error, "result": result}


def reply_kind_difference(first: Exchange, other: Exchange) -> str | None:
    """A JSON-RPC error in one era and a tool result in the other, described; None when both agree."""
    if _is_protocol_error(first) == _is_protocol_error(other):
        return None
    kinds = {True: "a JSON-RPC error", False: "a tool result"}
    return f"{kinds[_is_protocol_error(first)]} in one era, {kinds[_is_protocol_error(other)]} in the other"


def answer_differences(first: ToolOutcome, other: ToolOutcome) -> list[str]:
    """Where the other era's answer differs from the first one (extra members allowed, D-5)."""
    return contract_differences(_answer(first), _answer(other))
