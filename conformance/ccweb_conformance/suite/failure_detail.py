"""The facts of a failed scenario the console's failure block shows, taken while its files exist."""

from __future__ import annotations

import os

from ccweb_conformance.checks.failures import ConformanceFailure
from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure
from ccweb_conformance.fixtures.stored import read_stored
from ccweb_conformance.reports.common import first_line
from ccweb_conformance.reports.diff import MISSING
from ccweb_conformance.reports.model import FailureDetail, StoredConversation
from ccweb_conformance.suite.world import World
from ccweb_conformance.transport.exchange import Exchange

__all__ = ["failure_detail", "handshake_detail"]


def _exchange(world: World | None, error: BaseException | None) -> Exchange | None:
    carried = getattr(error, "exchange", None)
    if isinstance(carried, Exchange):
        return carried
    if world is None:
        return None
    calls = [e for e in world.exchanges if e.request is not None and e.request.get("method") == "tools/call"]
    return calls[-1] if calls else (world.exchanges[-1] if world.exchanges else None)


def _stored(world: World) -> tuple[StoredConversation, ...]:
    shown: list[StoredConversation] = []
    for alias, conversation_id in world.ids.items():
        path = world.files.path_of(conversation_id)
        messages, note = read_stored(path) if os.path.lexists(path) else (None, "no file")
        shown.append(StoredConversation(conversation_id, alias, messages, note))
    return tuple(shown)


def failure_detail(world: World | None, error: BaseException | None, binding: str | None) -> FailureDetail:
    """What was checked, sent and stored when ``error`` ended the scenario."""
    exchange = _exchange(world, error)
    method = arguments = None
    if exchange is not None and exchange.request is not None:
        method = exchange.request.get("method")
        params = exchange.request.get("params")
        arguments = params.get("arguments", MISSING) if isinstance(params, dict) else MISSING
    elif exchange is not None:
        arguments = exchange.sent_text
    if isinstance(error, ConformanceFailure):
        check, expected, actual, compared, at = error.what, error.expected, error.actual, error.compared, error.at
    else:
        kind = f" ({error.kind})" if isinstance(error, ProtocolFailure) else ""
        text = first_line(str(error)) if error is not None else ""
        check = f"{text}{kind}" if text else (type(error).__name__ if error is not None else "")
        expected, actual, compared, at = None, None, False, "$"
    return FailureDetail(
        check=check or first_line(str(error)),
        expected=expected,
        actual=actual,
        compared=compared,
        at=at,
        arguments=arguments,
        method=method,
        source=None if world is None else world.source,
        binding=binding,
        conversations=() if world is None else _stored(world),
    )


HANDSHAKE_BROKEN = "broke the protocol while negotiating MCP: "


def handshake_detail(error: HandshakeViolation) -> FailureDetail:
    """The block of a broken handshake: its cause as the check (e.g. a line on stdout that is not JSON)."""
    text = first_line(str(error))
    check = text.split(HANDSHAKE_BROKEN, 1)[1] if HANDSHAKE_BROKEN in text else text
    last = next((e for e in reversed(error.exchanges) if e.request is not None), None)
    method = None if last is None or last.request is None else last.request.get("method")
    params = None if last is None or last.request is None else last.request.get("params")
    return FailureDetail(check=check, method=method, arguments=params if params is not None else MISSING)
