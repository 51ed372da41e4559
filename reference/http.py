"""MCP over Streamable HTTP at ``/mcp``, with the SDK's Host/Origin checks and body limit."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

import uvicorn
from mcp.server.lowlevel.server import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

MAX_BODY_BYTES = 1_000_000
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _security(host: str, allowed_origins: list[str]) -> TransportSecuritySettings:
    """DNS-rebinding protection: only this server's own Host names and local Origins."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if not is_loopback(host):
        hosts.append(f"{host}:*")
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *allowed_origins]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


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


def build_app(server: Server[Any], host: str, auth_token: str | None, allowed_origins: list[str]) -> ASGIApp:
    """The ASGI app: ``/mcp`` in JSON-or-SSE mode, stateful sessions for the legacy era."""
    app: Starlette = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=host,
        transport_security=_security(host, allowed_origins),
        max_request_body_size=MAX_BODY_BYTES,
    )
    return app if auth_token is None else BearerTokenGate(app, auth_token)


def serve_http(app: ASGIApp, host: str, port: int) -> None:
    """Run until interrupted; logs only warnings, to stderr."""
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
