"""Mutants killed by scenarios of features/ccweb_features/concurrency.feature (D-15, CON-1)."""

from __future__ import annotations

from typing import Any

import anyio

from ccweb_reference import server
from mutants.patching import Handler, _wrap_handler
from mutants.registry import mutant

_ORIGINAL_SOURCE = server.Binding.source
_GAP_S = 0.02
"""An await between reading the request and using what was read: another request runs meanwhile."""


@mutant(
    "source_in_a_process_variable",
    "CON-1",
    "Four agents calling at once each read their own source conversation",
    "the HTTP source header of the current request is kept in a process-wide variable, read after an await: "
    "overlapping requests of different agents swap conversations",
    http=True,
)
def _() -> None:
    current: dict[str, Any] = {}

    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            headers = getattr(ctx.request, "headers", None)
            current["source"] = None if headers is None else headers.get(server.SOURCE_HEADER)
            await anyio.sleep(_GAP_S)
            return await handler(ctx, params)

        return call

    def source(self: server.Binding, ctx: Any) -> str | None:
        del ctx
        return current.get("source") if self.source_header is not None else self.fixed_source

    server.Binding.source = source  # type: ignore[method-assign]
    _wrap_handler("tools/call", wrap)


@mutant(
    "source_read_once_per_session",
    "CON-1",
    "A source header that changes between requests of one HTTP session is honoured",
    "the HTTP source header is read on a session's first call and kept for the session "
    "(as if read once at initialize)",
    http=True,
)
def _() -> None:
    kept: dict[str, str | None] = {}

    def source(self: server.Binding, ctx: Any) -> str | None:
        headers = getattr(ctx.request, "headers", None)
        session = None if headers is None else headers.get("mcp-session-id")
        if session is None:  # 2026-07-28 has no session: every request stands alone
            return _ORIGINAL_SOURCE(self, ctx)
        return kept.setdefault(session, _ORIGINAL_SOURCE(self, ctx))

    server.Binding.source = source  # type: ignore[method-assign]


@mutant(
    "arguments_in_a_process_variable",
    "CON-1",
    "Pipelined calls naming different conversations each read the one they name",
    "the arguments of the current call are kept in a process-wide variable, read after an await: "
    "pipelined calls read each other's conversationId",
)
def _() -> None:
    current: dict[str, Any] = {}

    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            current["arguments"] = params.arguments
            await anyio.sleep(_GAP_S)
            return await handler(ctx, params.model_copy(update={"arguments": current["arguments"]}))

        return call

    _wrap_handler("tools/call", wrap)
