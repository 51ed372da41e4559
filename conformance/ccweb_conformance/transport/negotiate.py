"""Era negotiation: probe ``server/discover`` (modern) and/or ``initialize`` (legacy).

Every decision ``--protocol`` drives is taken here (the options carry it through
``transport/factory.py`` and the target to the client untouched): which era to probe, whether to
fall back, which second era to test (:func:`other_era`) and why only one was (:func:`one_era_reason`).

``auto`` follows the SDK client's policy (mcp/client/_probe.py): any JSON-RPC error or
HTTP 4xx to the probe, an invalid result, or a result not listing 2026-07-28 falls back to
``initialize`` on the same connection, and so does a probe that times out (its late answer
is tolerated); only a -32022 naming modern versions alone is final. A -32022 answer to the
fallback ``initialize`` that names 2026-07-28 leads to one more probe, as in the SDK.

Negotiation speaks through a :class:`Wire` (the client, :class:`~ccweb_conformance.transport.client.McpClient`,
is one) and returns what was settled (:class:`Negotiated`), which the client adopts; it changes
nothing of the client's but through the wire's methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ccweb_conformance import options
from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure, TargetError
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.sdk_types import types
from ccweb_conformance.transport.versions import LEGACY_ACCEPTED, LEGACY_OFFER, MODERN_VERSION

Era = Literal["legacy", "modern"]
ProtocolMode = options.Protocol
"""``--protocol``: the option table's type (``options.Protocol``), one literal for both."""
OneEraReason = Literal["server", "requested"]


@dataclass(frozen=True)
class Negotiated:
    """The era and protocol revision a connection settled on."""

    era: Era
    version: str


class Wire(Protocol):
    """What negotiation needs of a connection."""

    client_info: dict[str, str]
    """How the client introduces itself."""

    def send_request(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        """A request in the envelope of ``era`` at ``version``, and its answer."""
        ...

    def send_notification(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        """A notification in the envelope of ``era`` at ``version``, once that revision is agreed."""
        ...

    def tolerate_late_answer(self, request_id: Any) -> None:
        """The answer to ``request_id``, which timed out, may still come: it is not a stray."""
        ...


def one_era_reason(mode: ProtocolMode) -> OneEraReason:
    """Why a run tests one era only (the reports' wording): ``requested`` when ``--protocol`` named one,
    ``server`` when ``auto`` found one (or the other era could not be reached)."""
    return "server" if mode == "auto" else "requested"


def other_era(mode: ProtocolMode, negotiated: Era) -> ProtocolMode | None:
    """The era to test as well under ``mode`` (D-16), or None.

    ``auto`` prefers 2026-07-28; when the server speaks it, the ``initialize`` era that clients
    use today is tested too. A server ``auto`` settled on ``initialize`` with speaks only that
    era (the probe failed), and an explicit ``--protocol`` asks for one era.
    """
    return "legacy" if mode == "auto" and negotiated == "modern" else None


def negotiate(wire: Wire, mode: ProtocolMode, handshake: list[Exchange]) -> Negotiated:
    """The era and revision ``wire`` settles on under ``mode``; TargetError when they cannot agree.

    Each exchange is appended to ``handshake`` as it happens, so that a failed negotiation's
    exchanges are there for the report too.
    """
    if mode != "legacy":
        negotiated = _probe(wire, handshake, fallback=mode == "auto")
        if negotiated is not None:
            return negotiated
    return _initialize(wire, mode, handshake)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"error {error.get('code')!r}: {error.get('message')!r}"
    return f"error {error!r}"


def _probe(wire: Wire, handshake: list[Exchange], *, fallback: bool) -> Negotiated | None:
    """2026-07-28 when the server speaks it; None to fall back to ``initialize``."""
    try:
        exchange = wire.send_request("server/discover", None, era="modern", version=MODERN_VERSION)
    except ProtocolFailure as failure:
        if failure.exchange is not None:
            handshake.append(failure.exchange)
        status = failure.exchange.http_status if failure.exchange else None
        if fallback and failure.kind == "timeout" and failure.exchange and failure.exchange.request:
            wire.tolerate_late_answer(failure.exchange.request["id"])
        elif not (fallback and status is not None and 400 <= status < 500):
            raise
        return None
    handshake.append(exchange)
    response = exchange.response or {}
    if "error" in response:
        error = response["error"]
        if not fallback:
            raise TargetError(f"server/discover at {MODERN_VERSION} failed with {_error_text(error)}")
        _refuse_if_modern_only(error)
        return None
    result = response.get("result")
    versions = result.get("supportedVersions") if isinstance(result, dict) else None
    if isinstance(versions, list) and MODERN_VERSION in versions and not (fallback and exchange.violations):
        return Negotiated("modern", MODERN_VERSION)
    if fallback:
        return None
    raise TargetError(f"server/discover does not list {MODERN_VERSION} in supportedVersions (got {versions!r})")


def _supported(error: Any) -> list[Any] | None:
    """The versions a -32022 error's ``supported`` lists (None for any other error, or no such list)."""
    if not isinstance(error, dict) or error.get("code") != types.UNSUPPORTED_PROTOCOL_VERSION:
        return None
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    return supported if isinstance(supported, list) else None


def _refuse_if_modern_only(error: Any) -> None:
    """-32022 whose ``supported`` names only modern versions we lack: no handshake to fall back to."""
    supported = _supported(error)
    if supported is not None and not any(v in types.version.HANDSHAKE_PROTOCOL_VERSIONS for v in supported):
        raise TargetError(f"the server supports only {supported!r}, none of which this runner speaks")


def _initialize(wire: Wire, mode: ProtocolMode, handshake: list[Exchange]) -> Negotiated:
    params = {"protocolVersion": LEGACY_OFFER, "capabilities": {}, "clientInfo": dict(wire.client_info)}
    exchange = wire.send_request("initialize", params, era="legacy", version=LEGACY_OFFER)
    handshake.append(exchange)
    response = exchange.response or {}
    if "error" in response:
        names_modern = mode == "auto" and MODERN_VERSION in (_supported(response["error"]) or [])
        negotiated = _probe(wire, handshake, fallback=False) if names_modern else None
        if negotiated is not None:
            return negotiated
        raise TargetError(f"initialize failed with {_error_text(response['error'])}")
    result = response.get("result")
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    if not isinstance(version, str):
        raise HandshakeViolation(
            f"initialize answered a malformed result (protocolVersion {version!r}): {exchange.violations or result!r}",
            handshake,
        )
    if version not in LEGACY_ACCEPTED:
        raise TargetError(f"initialize answered protocolVersion {version!r}, not one of {list(LEGACY_ACCEPTED)}")
    handshake.append(wire.send_notification("notifications/initialized", None, era="legacy", version=version))
    return Negotiated("legacy", version)
