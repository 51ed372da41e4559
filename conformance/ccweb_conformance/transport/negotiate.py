"""Era negotiation: probe ``server/discover`` (modern) and/or ``initialize`` (legacy).

Every decision ``--protocol`` drives is taken here (the options carry it through
``transport/factory.py`` and the target to the client untouched): which era to probe, whether to
fall back, which second era to test (:func:`other_era`) and why only one was (:func:`one_era_reason`).

``auto`` follows the SDK client's policy (mcp/client/_probe.py): any JSON-RPC error or
HTTP 4xx to the probe, an invalid result, or a result not listing 2026-07-28 falls back to
``initialize`` on the same connection, and so does a probe that times out (its late answer
is tolerated); only a -32022 naming modern versions alone is final. A -32022 answer to the
fallback ``initialize`` that names 2026-07-28 leads to one more probe, as in the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure, TargetError
from ccweb_conformance.transport.channel import id_key
from ccweb_conformance.transport.sdk_types import types
from ccweb_conformance.transport.versions import CLIENT_INFO, LEGACY_ACCEPTED, LEGACY_OFFER, MODERN_VERSION

if TYPE_CHECKING:
    from ccweb_conformance.transport.client import Era, McpClient, ProtocolMode


OneEraReason = Literal["server", "requested"]


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


def negotiate(client: McpClient) -> None:
    """Settle ``client.era`` and ``client.protocol_version``; TargetError when they cannot agree."""
    if client.protocol_mode != "legacy" and _probe(client, fallback=client.protocol_mode == "auto"):
        return
    _initialize(client)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return f"error {error.get('code')!r}: {error.get('message')!r}"
    return f"error {error!r}"


def _probe(client: McpClient, *, fallback: bool) -> bool:
    """True when the server speaks 2026-07-28; False to fall back to ``initialize``."""
    try:
        exchange = client.send_request("server/discover", None, era="modern", version=MODERN_VERSION)
    except ProtocolFailure as failure:
        if failure.exchange is not None:
            client.handshake.append(failure.exchange)
        status = failure.exchange.http_status if failure.exchange else None
        if fallback and failure.kind == "timeout" and failure.exchange and failure.exchange.request:
            client.channel.strays.add(id_key(failure.exchange.request["id"]))
        elif not (fallback and status is not None and 400 <= status < 500):
            raise
        client.broken = False
        return False
    client.handshake.append(exchange)
    response = exchange.response or {}
    if "error" in response:
        error = response["error"]
        if not fallback:
            raise TargetError(f"server/discover at {MODERN_VERSION} failed with {_error_text(error)}")
        _refuse_if_modern_only(error)
        return False
    result = response.get("result")
    versions = result.get("supportedVersions") if isinstance(result, dict) else None
    if isinstance(versions, list) and MODERN_VERSION in versions and not (fallback and exchange.violations):
        client.adopt("modern", MODERN_VERSION)
        return True
    if fallback:
        return False
    raise TargetError(f"server/discover does not list {MODERN_VERSION} in supportedVersions (got {versions!r})")


def _refuse_if_modern_only(error: Any) -> None:
    """-32022 whose ``supported`` names only modern versions we lack: no handshake to fall back to."""
    if not isinstance(error, dict) or error.get("code") != types.UNSUPPORTED_PROTOCOL_VERSION:
        return
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    if isinstance(supported, list) and not any(v in types.version.HANDSHAKE_PROTOCOL_VERSIONS for v in supported):
        raise TargetError(f"the server supports only {supported!r}, none of which this runner speaks")


def _names_modern(error: Any) -> bool:
    """A -32022 whose ``supported`` list names the revision this runner speaks."""
    if not isinstance(error, dict) or error.get("code") != types.UNSUPPORTED_PROTOCOL_VERSION:
        return False
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    return isinstance(supported, list) and MODERN_VERSION in supported


def _initialize(client: McpClient) -> None:
    params = {"protocolVersion": LEGACY_OFFER, "capabilities": {}, "clientInfo": dict(CLIENT_INFO)}
    exchange = client.send_request("initialize", params, era="legacy", version=LEGACY_OFFER)
    client.handshake.append(exchange)
    response = exchange.response or {}
    if "error" in response:
        names_modern = client.protocol_mode == "auto" and _names_modern(response["error"])
        if names_modern and _probe(client, fallback=False):
            return
        raise TargetError(f"initialize failed with {_error_text(response['error'])}")
    result = response.get("result")
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    if not isinstance(version, str):
        raise HandshakeViolation(
            f"initialize answered a malformed result (protocolVersion {version!r}): {exchange.violations or result!r}",
            client.handshake,
        )
    if version not in LEGACY_ACCEPTED:
        raise TargetError(f"initialize answered protocolVersion {version!r}, not one of {list(LEGACY_ACCEPTED)}")
    client.adopt("legacy", str(version))
    client.handshake.append(client.notify("notifications/initialized"))
