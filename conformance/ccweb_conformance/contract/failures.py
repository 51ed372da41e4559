"""Failures that say what was sent, what came back and what was expected."""

from __future__ import annotations

import json
from typing import Any

from ccweb_conformance.transport.channel import cut
from ccweb_conformance.transport.exchange import Exchange

MAX_SHOWN = 1500


class ConformanceFailure(AssertionError):
    """The implementation did not do what the contract requires."""

    what: str = ""
    """The check that failed, in one line."""
    expected: Any = None
    actual: Any = None
    compared: bool = False
    """True when expected and actual are contract values compared field by field."""
    exchange: Exchange | None = None


def shown(value: Any) -> str:
    """Compact JSON for a message, cut to a readable length."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=False)
    return cut(text, MAX_SHOWN)


def fail(
    what: str, *, expected: Any, actual: Any, exchange: Exchange | None = None, compared: bool = False
) -> ConformanceFailure:
    """A failure naming the check, the expected and actual values, and the last exchange.

    The values are kept on the exception too, for the console's failure block.
    """
    lines = [what, f"  expected: {shown(expected)}", f"  actual:   {shown(actual)}"]
    if exchange is not None:
        sent = exchange.request if exchange.request is not None else exchange.sent_text
        lines.append(f"  sent:     {shown(sent)}")
        received = exchange.response if exchange.response is not None else exchange.received_text
        lines.append(f"  received: {shown(received)}")
    failure = ConformanceFailure("\n".join(lines))
    failure.what, failure.expected, failure.actual = what, expected, actual
    failure.exchange, failure.compared = exchange, compared
    return failure
