"""Failures that say what was sent, what came back and what was expected."""

from __future__ import annotations

import json
from typing import Any

from ccweb_conformance.difftext import comparable, cut_pair, where
from ccweb_conformance.i18n import messages, spoken
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
    proves: tuple[str, ...] = ()
    """The requirement(s) the failed check proves, which the failure is charged to (empty: the
    scenario's own requirements)."""
    at: str = "$"
    """Where the compared values sit in the result object (``$.items``; ``$.items[].content`` for a list of
    one field of each item): differences are named from the result's root, as the exported cases name them."""
    by_expectation: bool = False
    """True when ``proves`` names the requirements that define the expected value (an error code's
    registry entry), not the rule the scenario is about: a scenario about none of them (two byte-order
    marks expected unreadable: STO-3) is charged to its own requirements."""


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if spoken(value):  # words (the entries a watcher saw), in English here; the reports say them in their language
        return messages().words(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def shown(value: Any) -> str:
    """Compact JSON for a message, cut to a readable length."""
    return cut(_text(value), MAX_SHOWN)


def shown_pair(expected: Any, actual: Any) -> list[str]:
    """The expected and actual lines of a message, cut around their first difference, and a line saying where
    it is when they were cut (``first difference at character 1,230 ($.tools[0].description)``)."""
    if not comparable(expected, actual):
        return [f"  expected: {shown(expected)}", f"  actual:   {shown(actual)}"]
    shown_expected, shown_actual, at = cut_pair(_text(expected), _text(actual), MAX_SHOWN)
    lines = [f"  expected: {shown_expected}", f"  actual:   {shown_actual}"]
    note = where(at, expected, actual)
    return [*lines, f"  differs:  {note}"] if note else lines


def fail(
    what: str,
    *,
    expected: Any,
    actual: Any,
    exchange: Exchange | None = None,
    compared: bool = False,
    proves: tuple[str, ...] | str = (),
    by_expectation: bool = False,
    at: str = "$",
) -> ConformanceFailure:
    """A failure naming the check, the expected and actual values, and the last exchange.

    The values are kept on the exception too, for the console's failure block; ``proves`` names
    the requirement(s) of the check, which the failure is charged to (see ``by_expectation``).
    """
    lines = [what, *shown_pair(expected, actual)]
    if exchange is not None:
        sent = exchange.request if exchange.request is not None else exchange.sent_text
        lines.append(f"  sent:     {shown(sent)}")
        received = exchange.response if exchange.response is not None else exchange.received_text
        lines.append(f"  received: {shown(received)}")
    failure = ConformanceFailure("\n".join(lines))
    failure.what, failure.expected, failure.actual = what, expected, actual
    failure.exchange, failure.compared = exchange, compared
    failure.proves = (proves,) if isinstance(proves, str) else tuple(proves)
    failure.by_expectation = by_expectation
    failure.at = at
    return failure


def charge(error: BaseException, requirements: tuple[str, ...] | str) -> BaseException:
    """``error`` charged to ``requirements`` unless its check already named its own."""
    if isinstance(error, ConformanceFailure) and not error.proves:
        error.proves = (requirements,) if isinstance(requirements, str) else tuple(requirements)
    return error
