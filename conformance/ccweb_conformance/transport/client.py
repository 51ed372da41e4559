"""A raw MCP client: builds the era's envelope, sends it over a channel, records the exchange."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.jsontext import compact
from ccweb_conformance.transport.channel import (
    ANY_RESPONSE,
    NO_RESPONSE,
    Channel,
    ChannelError,
    Heard,
    Marker,
    Reply,
    Wait,
    id_key,
)
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.lazy import deferred_import
from ccweb_conformance.transport.negotiate import Era, Negotiated, ProtocolMode, negotiate
from ccweb_conformance.transport.sdk_types import types
from ccweb_conformance.transport.validate import http_status_violations, message_violations, reply_id_violations
from ccweb_conformance.transport.versions import CLIENT_INFO, LEGACY_OFFER

__all__ = ["METHOD_NOT_FOUND", "OMIT", "RECEIVED_KEPT", "STARTUP_ALLOWANCE", "Era", "McpClient", "ProtocolMode"]
"""Era and ProtocolMode are negotiation's (``negotiate.py``), named here too for the client's users."""

METHOD_NOT_FOUND = -32601


OMIT: Final = Marker("OMIT")
"""``call_tool(name)`` default: send no ``arguments`` key at all."""


def _raw_expectation(text: str) -> tuple[str | None, Wait]:
    """The method raw text names (if any) and what to wait for after sending it."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return None, ANY_RESPONSE
    if not isinstance(parsed, dict) or not isinstance(parsed.get("method"), str):
        return None, ANY_RESPONSE
    if "id" not in parsed:
        return parsed["method"], NO_RESPONSE
    request_id = parsed["id"]
    return parsed["method"], request_id if isinstance(request_id, int | str) else ANY_RESPONSE


RECEIVED_KEPT = 200
"""Notifications and server requests a client keeps (the first ones; the rest are not kept)."""
STARTUP_ALLOWANCE = 5.0
"""Seconds added to --timeout for the handshake: start-up is not a slow answer."""


class McpClient:
    """One negotiated MCP connection (a process, an in-process server, or an HTTP session)."""

    def __init__(
        self, channel: Channel, *, protocol: ProtocolMode = "auto", timeout: float = 10.0, name: str | None = None
    ) -> None:
        self.channel = channel
        self.client_info = {**CLIENT_INFO, "name": name} if name is not None else dict(CLIENT_INFO)
        """How the client introduces itself (``initialize``, or ``_meta`` per request): the kit, unless ``name``."""
        self._asked: ProtocolMode = protocol
        self.timeout = timeout
        self.protocol_version: str = LEGACY_OFFER
        """The negotiated revision (valid once ``connect`` returned)."""
        self.era: Era = "legacy"
        self.negotiated = False
        self.broken = False
        """True after a crash, timeout or other wire failure: the target makes a fresh client."""
        self.closed = False
        self.check_messages = True
        """Check every message received against the MCP schema (the bench turns it off to time the wire)."""
        self.handshake: list[Exchange] = []
        """The negotiation's exchanges (probe, initialize), for reports."""
        self.received: list[dict[str, Any]] = []
        """Notifications and server->client requests received so far (the first RECEIVED_KEPT)."""
        self._next_id = 0

    @property
    def protocol_mode(self) -> ProtocolMode:
        """The era asked for (``--protocol``, or the other era a target also tests); the era settled on is ``era``."""
        return self._asked

    # -- lifecycle ---------------------------------------------------------

    def connect(self) -> None:
        """Negotiate the era and revision (see :mod:`ccweb_conformance.transport.negotiate`)."""
        per_request = self.timeout
        self.timeout = per_request + STARTUP_ALLOWANCE  # a fresh server may still be starting
        try:
            self.adopt(negotiate(self, self.protocol_mode, self.handshake))
        finally:
            self.timeout = per_request

    def adopt(self, negotiated: Negotiated) -> None:
        """Take the era and revision negotiation settled on; a failure it recovered from no longer counts."""
        self.era, self.protocol_version, self.negotiated = negotiated.era, negotiated.version, True
        self.broken = False

    def tolerate_late_answer(self, request_id: Any) -> None:
        """The answer to ``request_id``, which timed out, may still come: the channel takes it as no stray."""
        self.channel.strays.add(id_key(request_id))

    def close(self) -> None:
        """End the connection (legacy HTTP: DELETE the session); idempotent."""
        if not self.closed:
            self.closed = True
            self.channel.close()

    # -- requests ------------------------------------------------------------

    def request(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        """Send a request in the negotiated era's envelope and wait for its response."""
        return self.send_request(method, params, era=self.era, version=self.protocol_version)

    def list_tools(self) -> Exchange:
        """``tools/list``."""
        return self.request("tools/list")

    def call_tool(self, name: str, arguments: Any = OMIT) -> Exchange:
        """``tools/call`` with ``arguments`` exactly as given (OMIT: no arguments key)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not OMIT:
            params["arguments"] = arguments
        return self.request("tools/call", params)

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        """Send a notification in the negotiated era's envelope (no response awaited)."""
        return self.send_notification(method, params, era=self.era, version=self.protocol_version)

    def send_notification(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        """Send a notification in the envelope of ``era`` at ``version``, a revision already agreed (negotiation)."""
        message = self._message(method, params, era, version, request=False)
        return self._send(message, NO_RESPONSE, era, version, agreed=True)

    def send_request(self, method: str, params: dict[str, Any] | None, *, era: Era, version: str) -> Exchange:
        """Send a request in the envelope of ``era`` at ``version`` (used by negotiation)."""
        message = self._message(method, params, era, version, request=True)
        return self._send(message, message["id"], era, version)

    def prepared_calls(self, name: str, calls: Sequence[Any]) -> list[dict[str, Any]]:
        """``tools/call`` requests of ``name``, one per arguments of ``calls``, each with an id of its own, in the
        negotiated era's envelope: built, not sent (``transport/parallel.py`` puts them in flight together)."""
        return [
            self._message("tools/call", {"name": name, "arguments": arguments}, self.era, self.protocol_version)
            for arguments in calls
        ]

    def send_prepared(self, request: dict[str, Any]) -> Exchange:
        """Send one request :meth:`prepared_calls` built and wait for its answer; safe on several threads at once
        over HTTP (each a POST of its own)."""
        return self._send(request, request["id"], self.era, self.protocol_version)

    def start_request(self, method: str, params: dict[str, Any] | None = None) -> tuple[int, Exchange]:
        """Send a request in the negotiated era's envelope without waiting for its answer: its id and the exchange
        of the sending (no response); what comes for it is read with :meth:`listen`."""
        message = self._message(method, params, self.era, self.protocol_version)
        return message["id"], self._send(message, NO_RESPONSE, self.era, self.protocol_version)

    def listen(self, seconds: float) -> list[Heard] | None:
        """Every message that comes within ``seconds`` while no answer is awaited (bounded by ``seconds``); None
        when nothing more can come: the wire has no stream of the connection's own (HTTP), or it ended (the server
        closed its output, or was stopped). A line that is not a message breaks it."""
        try:
            heard = self.channel.listen(seconds, self.answer_server_request)
        except ChannelError as exc:
            self.broken = True
            exchange = self._record(None, None, exc.reply, time.monotonic(), None, self.protocol_version)
            raise ProtocolFailure(self._failure_message("while listening", exc), exchange, exc.kind) from None
        for one in heard or []:  # kept as an exchange keeps what comes beside its answer
            if isinstance(one.message, dict) and "method" in one.message and len(self.received) < RECEIVED_KEPT:
                self.received.append(one.message)
        return heard

    def send_text(self, text: str, *, timeout: float | None = None) -> Exchange:
        """Send raw text (a stdio line or an HTTP body); the response may be None.

        A JSON object with an ``id`` waits for that id, a notification for nothing, anything
        else for the first response of any id. Silence until the timeout is not a failure.
        """
        method, wait = _raw_expectation(text)
        headers = self._headers(method, None, self.era, self.protocol_version) if method else self._base_headers()
        return self._exchange(None, wait, headers, method, text, timeout if timeout is not None else self.timeout)

    # -- envelope ------------------------------------------------------------

    def _message(
        self, method: str, params: dict[str, Any] | None, era: Era, version: str, *, request: bool = True
    ) -> dict[str, Any]:
        """A request (with the next id) or a notification of ``method``, in the envelope of ``era`` at ``version``."""
        message: dict[str, Any] = {"jsonrpc": "2.0"}
        if request:
            self._next_id += 1
            message["id"] = self._next_id
        message["method"] = method
        params = self._envelope(method, params, era, version)
        if params is not None:
            message["params"] = params
        return message

    def _send(self, message: dict[str, Any], wait: Wait, era: Era, version: str, *, agreed: bool = False) -> Exchange:
        """Send a message this client built, in the envelope of ``era`` at ``version``; wait for ``wait``."""
        method = message["method"]
        headers = self._headers(method, message.get("params"), era, version, agreed=agreed)
        return self._exchange(message, wait, headers, method, None, self.timeout, version)

    def _envelope(self, method: str, params: dict[str, Any] | None, era: Era, version: str) -> dict[str, Any] | None:
        if era == "legacy":
            return params
        params = dict(params or {})
        meta = params.get("_meta")
        meta = dict(meta) if isinstance(meta, Mapping) else {}
        meta[types.PROTOCOL_VERSION_META_KEY] = version
        meta[types.CLIENT_CAPABILITIES_META_KEY] = {}
        meta[types.CLIENT_INFO_META_KEY] = dict(self.client_info)
        params["_meta"] = meta
        return params

    def _base_headers(self, agreed: str | None = None) -> dict[str, str]:
        """``MCP-Protocol-Version`` once a revision is agreed: the negotiated one, or ``agreed`` as negotiation ends."""
        version = agreed or (self.protocol_version if self.negotiated else None)
        return {"MCP-Protocol-Version": version} if version else {}

    def _headers(
        self, method: str, params: Mapping[str, Any] | None, era: Era, version: str, *, agreed: bool = False
    ) -> dict[str, str]:
        if era == "legacy" or not self.channel.sends_headers:  # stdio has no headers: no SDK import (0.4 s)
            return self._base_headers(version if agreed else None)
        # Imported here: the SDK package costs half a second to import, and only 2026-07-28 needs it.
        inbound = deferred_import("mcp.shared.inbound")
        headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
        name_key = inbound.NAME_BEARING_METHODS.get(method)
        if name_key is not None and params is not None and isinstance(params.get(name_key), str):
            headers["Mcp-Name"] = inbound.encode_header_value(params[name_key])
        return headers

    # -- the exchange ----------------------------------------------------------

    def _exchange(  # noqa: PLR0917 (internal, one call shape per caller)
        self,
        message: dict[str, Any] | None,
        wait: Wait,
        headers: Mapping[str, str],
        method: str | None,
        sent_text: str | None,
        timeout: float,
        version: str | None = None,
    ) -> Exchange:
        text = sent_text if sent_text is not None else compact(message)
        started = time.monotonic()
        version = version or self.protocol_version
        if self.check_messages:
            self.channel.inspect = lambda other: message_violations(other, version=version, method=None)
        else:
            self.channel.inspect = None
        try:
            answer = self.answer_server_request
            reply = self.channel.send(text, wait=wait, headers=headers, timeout=timeout, answer=answer)
        except ChannelError as exc:
            exchange = self._record(message, sent_text, exc.reply, started, method, version)
            if sent_text is not None and exc.kind == "timeout" and wait is not NO_RESPONSE:
                self.channel.strays.add(id_key(None if wait is ANY_RESPONSE else wait))
                return exchange
            self.broken = True
            raise ProtocolFailure(self._failure_message(method, exc), exchange, exc.kind) from None
        exchange = self._record(message, sent_text, reply, started, method, version)
        if exchange.response is not None and wait is not NO_RESPONSE:
            exchange.violations.extend(reply_id_violations(exchange.response, None if wait is ANY_RESPONSE else wait))
        return exchange

    def _record(  # noqa: PLR0917
        self,
        message: dict[str, Any] | None,
        sent_text: str | None,
        reply: Reply,
        started: float,
        method: str | None,
        version: str,
    ) -> Exchange:
        violations = list(reply.decode_problems)
        for other in reply.others:
            if "method" in other and len(self.received) < RECEIVED_KEPT:
                self.received.append(other)
        violations.extend(reply.other_violations)
        if reply.other_violations_seen > len(reply.other_violations):
            more = reply.other_violations_seen - len(reply.other_violations)
            violations.append(f"... and {more} more violations in the other messages received")
        if reply.response is not None and self.check_messages:
            violations.extend(message_violations(reply.response, version=version, method=method))
            violations.extend(http_status_violations(reply.response, reply.http_status, version))
        return Exchange(
            request=message,
            response=reply.response,
            received_text=reply.received_text(),
            sent_text=sent_text,
            elapsed_ms=(time.monotonic() - started) * 1000.0,
            violations=violations,
            http_status=reply.http_status,
            content_type=reply.content_type,
        )

    def _failure_message(self, method: str | None, exc: ChannelError) -> str:
        what = f"{self.channel.label}: {method or 'raw text'}: {exc.detail}"
        tail = self.channel.stderr_tail(20)
        return f"{what}\nlast lines of the server's stderr:\n{tail}" if tail.strip() else what

    def answer_server_request(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """Reply to a server->client request: ping gets an empty result, anything else -32601."""
        if request.get("method") == "ping":
            return {"jsonrpc": "2.0", "id": request.get("id"), "result": {}}
        return {
            "jsonrpc": "2.0",
            "id": request.get("id"),
            "error": {"code": METHOD_NOT_FOUND, "message": "the conformance runner serves no requests"},
        }
