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

import hmac
import ipaddress
import re
import sys
from typing import Any

import uvicorn
from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http import EventMessage, SSEEvent, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ccweb_reference import wire

MAX_BODY_BYTES = 1_000_000
_HAS_PORT = re.compile(r":[0-9]+$")
LOOPBACK_NAMES = ("localhost",)


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
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if not is_loopback(host):
        hosts.append(f"{host}:*")
    hosts += [name if _HAS_PORT.search(name) else f"{name}:*" for name in allowed_hosts]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *allowed_origins]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


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


class BearerTokenGate:
    """Rejects HTTP requests without ``Authorization: Bearer <token>`` (constant-time compare)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = JSONResponse(
                    {"error": "unauthorized"}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_app(
    server: Server[Any],
    host: str,
    auth_token: str | None,
    allowed_origins: list[str],
    allowed_hosts: list[str] | None = None,
) -> ASGIApp:
    """The ASGI app: ``/mcp``, SSE replies and stateful sessions for the legacy era.

    The same app ``Server.streamable_http_app`` builds without auth, with the
    surrogate-safe session manager in place of the SDK's.
    """
    manager = SurrogateSafeSessionManager(
        app=server,
        security_settings=_security(host, allowed_origins, allowed_hosts or []),
        max_request_body_size=MAX_BODY_BYTES,
    )
    app = Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))], lifespan=lambda _app: manager.run()
    )
    return app if auth_token is None else BearerTokenGate(app, auth_token)


def serve_http(app: ASGIApp, host: str, port: int) -> None:
    """Run until interrupted. Prints the URL it serves (``--port 0`` picks a free port, so
    this line is the only way to learn it), then logs only warnings, to stderr."""
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on")
    sock = config.bind_socket()
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    print(f"ccweb-reference: serving http://{shown}:{sock.getsockname()[1]}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(config).run(sockets=[sock])
