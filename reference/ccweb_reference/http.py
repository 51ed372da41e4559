"""MCP over Streamable HTTP at ``/mcp``, with the SDK's Host/Origin checks and body limit.

Lone surrogates (D-3, UNI-3): the 2026-07-28 path writes with ``json.dumps``, which
escapes them. The legacy (``initialize``) path goes through the SDK's
``StreamableHTTPServerTransport``, which writes every message with pydantic's
``model_dump_json``; that raises on a lone surrogate and the client gets an empty SSE
stream. The SDK has no hook for the writer and builds the transport itself, so this
module overrides exactly that one writer method (:class:`SurrogateSafeTransport`) and
has the session manager adopt each transport it admits into that subclass.
"""

from __future__ import annotations

import dataclasses
import hmac
import ipaddress
import logging
import re
import sys
from collections import Counter
from typing import Any

import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.streamable_http import EventMessage, SSEEvent, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import ccweb_spec
from ccweb_reference import wire
from ccweb_reference.http_limits import HttpLimits, fit_descriptors, install_log
from ccweb_reference.http_protocol import bounded_protocol
from ccweb_reference.sdk import Server

MAX_BODY_BYTES = 1_000_000
_HAS_PORT = re.compile(r":[0-9]+$")
LOOPBACK_NAMES = ("localhost",)
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
_HOST_HEADER = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(?P<port>[0-9]{1,5}))?")
LOGGER = logging.getLogger("ccweb_reference.http")
INVALID_REQUEST = -32600
"""The JSON-RPC code the SDK's own HTTP-level refusals carry."""


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _security(host: str, allowed_origins: list[str], allowed_hosts: list[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection: only this server's own Host names and local Origins.

    A server bound off loopback is reached under names it cannot know (its address, a DNS
    name): ``allowed_hosts`` (``--allow-host``) names them, as ``name`` or ``name:port``.
    """
    hosts = [f"{name}:*" for name in _host_names(host)]
    hosts += [name if _HAS_PORT.search(name) else f"{name}:*" for name in allowed_hosts]
    hosts += [name.removesuffix(":*") for name in hosts if name.endswith(":*")]  # the port is optional
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *allowed_origins]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def _host_names(host: str) -> list[str]:
    names = list(LOOPBACK_HOSTS)
    if not is_loopback(host):
        names.append(f"[{host.strip('[]')}]" if ":" in host else host)
    return names


class HostGate:
    """Admits only a Host header that is exactly an allowed name, with an optional port.

    The SDK's own check matches ``name:*`` by prefix, so ``127.0.0.1:1.evil.com`` would pass
    it; this gate runs before it and compares the name and the port separately.
    """

    def __init__(self, app: ASGIApp, host: str, allowed_hosts: list[str]) -> None:
        self.app = app
        self.any_port = {name.lower() for name in _host_names(host)}
        self.exact: set[tuple[str, str]] = set()
        for entry in allowed_hosts:
            match = _HOST_HEADER.fullmatch(entry)
            if match is not None and match["port"] is not None:
                self.exact.add((match["name"].lower(), match["port"]))
            else:
                self.any_port.add(entry.lower())

    def admits(self, value: str) -> bool:
        """True if ``value`` is an allowed host name, with or without a port."""
        match = _HOST_HEADER.fullmatch(value)
        if match is None:
            return False
        name = match["name"].lower()
        return name in self.any_port or (match["port"] is not None and (name, match["port"]) in self.exact)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if not self.admits(host):
                LOGGER.warning("refused requests with a Host that is not this server's (421)")
                response = PlainTextResponse("Invalid Host header", status_code=421, headers={"Connection": "close"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SurrogateSafeTransport(StreamableHTTPServerTransport):
    """The SDK transport, writing SSE events with :func:`ccweb_reference.wire.dumps`.

    Only used with ``json_response=False`` (SSE replies), so the single writer that
    turns a server message into text is ``_create_event_data``; everything else,
    including the fixed-text HTTP error bodies, is the SDK's own code.
    """

    def _create_event_data(self, event_message: EventMessage) -> SSEEvent:
        data = event_message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
        event: SSEEvent = {"event": "message", "data": wire.dumps(data)}
        if event_message.event_id:
            event["id"] = event_message.event_id
        return event


class SurrogateSafeSessionManager(StreamableHTTPSessionManager):
    """The SDK session manager; each legacy-era session gets a :class:`SurrogateSafeTransport`."""

    def _admit_session(self, requestor: AuthorizationContext | None) -> StreamableHTTPServerTransport | None:
        transport = super()._admit_session(requestor)
        if transport is not None:
            # The SDK constructs the transport itself (no factory hook). The subclass adds
            # no state and overrides one writer, so adopting the fresh instance is safe.
            transport.__class__ = SurrogateSafeTransport
        return transport

    async def _discard_session(self, session_id: str, transport: StreamableHTTPServerTransport) -> None:
        """Forget the session; one that expired says so, with the idle timeout that closed it and how many are left
        (counted before the first await, so sessions that expire together each see the one before them gone)."""
        if transport.idle_scope is not None and transport.idle_scope.cancelled_caught:
            LOGGER.warning(
                "closed legacy sessions idle for %g s (%d still open)",
                self.session_idle_timeout,
                len(self._server_instances) - (session_id in self._server_instances),
            )
        await super()._discard_session(session_id, transport)


class OneHeader:
    """Refuses a request carrying one header more than once (400, connection closed).

    For the headers the server decides by: the source header (which conversation is the source)
    and, with a token, ``Authorization`` (which credential is meant). Both would be ambiguous:
    Starlette's ``Headers.get`` returns the first of several and ``dict(scope["headers"])`` the
    last, so one of them was silently used (a right token behind a wrong one let the request in).
    Header names are compared in any case (the server hands them over lowercased; the name given
    is lowercased here). The same value twice is refused too: one rule, whatever the values.
    """

    def __init__(self, app: ASGIApp, name: str) -> None:
        self.app = app
        self.name = name
        self.key = name.lower().encode("latin-1")

    def times_sent(self, headers: list[tuple[bytes, bytes]]) -> int:
        """How many times the request's ``headers`` carry the header."""
        return Counter(name.lower() for name, _ in headers)[self.key]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (times := self.times_sent(scope["headers"])) > 1:
            LOGGER.warning("refused requests repeating the header %s (400)", self.name)
            message = f"Bad Request: the header {self.name} is sent {times} times; send it once"
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
            response = JSONResponse(error, status_code=400, headers={"Connection": "close"})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class QuietDisconnect:
    """Ends a request whose client went away (or whose body the server timed out) without a traceback.

    The SDK reads a request's body with Starlette, which raises ``ClientDisconnect`` when the
    connection is gone first; uncaught, every such request logged a traceback.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            LOGGER.debug("a request's client went away before its body was read")


class DropClientDisconnect(logging.Filter):
    """Drops a log record whose exception is Starlette's ``ClientDisconnect``.

    The SDK's legacy-era transport logs every request whose body never came whole as an error
    with a traceback ("Error handling POST request"). The body timeout has already logged its
    own line; a client that left is not the server's error.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.exc_info is None or not isinstance(record.exc_info[1], ClientDisconnect)


class BearerTokenGate:
    """Rejects HTTP requests without ``Authorization: Bearer <token>`` (constant-time compare).

    The outermost layer, so it runs as soon as a request head is complete, before the body
    is read. The scheme name is case-insensitive (RFC 9110, 11.1); the token is not.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    def admits(self, given: bytes) -> bool:
        """True for ``Bearer <token>`` with the expected token, the scheme in any case."""
        scheme, _, credentials = given.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.lstrip(b" "), self.expected)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.admits(dict(scope["headers"]).get(b"authorization", b"")):
            LOGGER.warning("refused requests without the bearer token (401)")
            headers = {"WWW-Authenticate": "Bearer", "Connection": "close"}
            response = JSONResponse({"error": "unauthorized"}, status_code=401, headers=headers)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


def build_app(  # noqa: PLR0917  (the last two were added later, with defaults)
    server: Server[Any],
    host: str,
    auth_token: str | None,
    allowed_origins: list[str],
    allowed_hosts: list[str] | None = None,
    limits: HttpLimits | None = None,
    *,
    source_header: str | None = None,
) -> ASGIApp:
    """The ASGI app: ``/mcp``, SSE replies and stateful sessions for the legacy era.

    The same app ``Server.streamable_http_app`` builds without auth, with the
    surrogate-safe session manager in place of the SDK's, a capped number of legacy
    sessions that expire when idle, and checked first: a repeated ``Authorization`` header and
    the token (with ``auth_token``), then the Host, then a repeated source header
    (``source_header``, the binding's by default).
    """
    bounds = limits or HttpLimits()
    manager = SurrogateSafeSessionManager(
        app=server,
        security_settings=_security(host, allowed_origins, allowed_hosts or []),
        max_request_body_size=MAX_BODY_BYTES,
        max_sessions=bounds.max_sessions,
        session_idle_timeout=bounds.session_idle_timeout,
    )
    app = Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))], lifespan=lambda _app: manager.run()
    )
    one_source = OneHeader(app, source_header or ccweb_spec.binding().source_header)
    gated: ASGIApp = HostGate(one_source, host, allowed_hosts or [])
    if auth_token is not None:
        gated = OneHeader(BearerTokenGate(gated, auth_token), "Authorization")
    return QuietDisconnect(gated)


def serve_http(app: ASGIApp, host: str, port: int, limits: HttpLimits | None = None) -> None:
    """Run until interrupted. Prints the URL it serves (``--port 0`` picks a free port, so
    this line is the only way to learn it), then logs only warnings, to stderr, rate-limited."""
    bounds = limits or HttpLimits()
    install_log(bounds.log_interval, dropped=DropClientDisconnect())
    bounds = dataclasses.replace(bounds, max_connections=fit_descriptors(bounds.max_connections))
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        log_config=None,
        lifespan="on",
        http=bounded_protocol(bounds),
        timeout_keep_alive=bounds.idle_timeout,  # type: ignore[arg-type]  # call_later takes seconds as a float
        h11_max_incomplete_event_size=bounds.max_header_bytes,
    )
    sock = config.bind_socket()
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    print(f"ccweb-reference: serving http://{shown}:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])
