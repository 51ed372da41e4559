"""Mutants killed by scenarios of features/ccweb_features/protocol.feature."""

from __future__ import annotations

import json
import time
from typing import Any

import mcp_types as types
from pydantic import ValidationError

from ccweb_conformance.transport.versions import MODERN_VERSION
from ccweb_reference import server, wire
from mutants.patching import Handler, Reply, _filter_incoming, _result, _text, _transform_call_result, _wrap_handler
from mutants.registry import mutant


@mutant(
    "invalid_content_block",
    "PROTO-1",
    "Every message received is valid MCP for the negotiated revision",
    'an extra content block {"type": "text"} without its text member is sent',
)
def _() -> None:
    broken = types.TextContent.model_construct(type="text")
    _transform_call_result(lambda r: _result(r, content=[*r.content, broken]))


@mutant(
    "malformed_error_replies",
    "PROTO-1",
    "The server keeps serving after a message that is not JSON-RPC",
    'a line that is not JSON is answered {"jsonrpc": "2.0", "id": "zzz", "error": {"code": "bad"}}',
)
def _() -> None:
    bad = types.JSONRPCError.model_construct(jsonrpc="2.0", id="zzz", error=types.ErrorData.model_construct(code="bad"))
    _filter_incoming(lambda item: Reply(bad) if isinstance(item, Exception) else item)


@mutant(
    "error_reply_with_wrong_id",
    "PROTO-1",
    "The server keeps serving after a message that is not JSON-RPC",
    "a line that is not JSON is answered with a well-formed -32700 error, but with id 0 instead of null",
)
def _() -> None:
    reply = Reply(types.JSONRPCError(jsonrpc="2.0", id=0, error=types.ErrorData(code=-32700, message="Parse error")))
    _filter_incoming(lambda item: reply if isinstance(item, Exception) else item)


def _is_parse_error(item: Any) -> bool:
    """True for text that is not JSON at all (as opposed to JSON that is no JSON-RPC request)."""
    if isinstance(item, json.JSONDecodeError):
        return True
    return isinstance(item, ValidationError) and any(e["type"] == "json_invalid" for e in item.errors())


@mutant(
    "garbage_reply_to_invalid_request",
    "PROTO-1",
    "A reply to an invalid request is a JSON-RPC error that echoes the request's id",
    'JSON that is no JSON-RPC request (5, {"hello": "world"}) is answered {"id": "zzz", "error": {"code": "bad"}};'
    " text that is not JSON gets a correct -32700",
)
def _() -> None:
    bad = types.JSONRPCError.model_construct(jsonrpc="2.0", id="zzz", error=types.ErrorData.model_construct(code="bad"))
    _filter_incoming(lambda item: Reply(bad) if isinstance(item, Exception) and not _is_parse_error(item) else item)


@mutant(
    "late_garbage_reply_to_invalid_request",
    "PROTO-1",
    "A reply to an invalid request is a JSON-RPC error that echoes the request's id",
    'as garbage_reply_to_invalid_request, but the garbage comes 300 ms late (the runner waits 100 ms for a reply'
    " to raw text over stdio; a later one is read with the next call and checked there)",
)
def _() -> None:
    bad = types.JSONRPCError.model_construct(jsonrpc="2.0", id="zzz", error=types.ErrorData.model_construct(code="bad"))

    def late(item: Any) -> Any:
        if isinstance(item, Exception) and not _is_parse_error(item):
            time.sleep(0.3)  # holds the server's loop: the reply comes before the next answer, but late
            return Reply(bad)
        return item

    _filter_incoming(late)


@mutant(
    "error_field_dropped_after_initialize",
    "PROTO-4",
    "An implementation that speaks both eras answers alike in both",
    "invalid_arguments errors leave out error.field, but only on connections that began with initialize; "
    "2026-07-28 requests are answered right, so only comparing the eras finds it (D-16)",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            result = await handler(ctx, params)
            data = result.structured_content
            error = data.get("error") if isinstance(data, dict) else None
            if ctx.protocol_version == MODERN_VERSION or not isinstance(error, dict) or "field" not in error:
                return result
            data = {**data, "error": {key: value for key, value in error.items() if key != "field"}}
            return _result(result, structured_content=data, content=[_text(wire.dumps(data))])

        return call

    _wrap_handler("tools/call", wrap)


@mutant(
    "log_without_loglevel",
    "PROTO-1",
    "No log message is sent for a request that did not ask for one",
    "every tools/call sends a notifications/message (level info) before its answer, though no request set"
    " logLevel and the server declares no logging capability (a server that logs each call to its client)",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            log = types.LoggingMessageNotificationParams(level="info", data=f"tools/call {params.name}")
            await ctx.session.send_notification(types.LoggingMessageNotification(params=log), ctx.request_id)
            return await handler(ctx, params)

        return call

    _wrap_handler("tools/call", wrap)


@mutant(
    "description_names_last_read",
    "PROTO-1",
    "tools/list does not change as a side effect of other requests",
    "each successful read appends 'The last conversation read was <id>.' to the tool description that tools/list"
    " serves (a description kept up to date by the calls)",
)
def _() -> None:
    base = server.TOOL

    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            result = await handler(ctx, params)
            data = result.structured_content
            if isinstance(data, dict) and data.get("ok") is True:
                note = f" The last conversation read was {data['conversationId']}."
                server.TOOL = {**base, "description": base["description"] + note}
            return result

        return call

    _wrap_handler("tools/call", wrap)


SCANNER_LIMIT = 64 * 1024
"""Go's ``bufio.Scanner`` gives up on a line longer than this (``bufio.MaxScanTokenSize``)."""


def _long_line_ends_the_server(item: Any) -> Any:
    from mcp.shared.message import SessionMessage  # noqa: PLC0415

    if isinstance(item, SessionMessage) and len(item.message.model_dump_json(by_alias=True)) > SCANNER_LIMIT:
        raise EOFError("bufio.Scanner: token too long")
    return item


@mutant(
    "long_request_line_ends_server",
    "PROTO-2",
    "A request of 1 MiB is answered or refused, and the server keeps serving",
    "a request line over 64 KiB ends the server (Go's bufio.Scanner and its default buffer)",
)
def _() -> None:
    _filter_incoming(_long_line_ends_the_server)


def _cancellation_ignored(item: Any) -> Any:
    from mcp.shared.message import SessionMessage  # noqa: PLC0415

    if isinstance(item, SessionMessage) and getattr(item.message, "method", None) == "notifications/cancelled":
        return SessionMessage(types.JSONRPCNotification(jsonrpc="2.0", method="notifications/roots/list_changed"))
    return item


@mutant(
    "answer_after_cancel",
    "PROTO-5",
    "Nothing is sent for a call after the client cancelled it",
    "notifications/cancelled is ignored: a call cancelled while in flight is still answered when it ends",
    should=True,
)
def _() -> None:
    _filter_incoming(_cancellation_ignored)


@mutant(
    "no_exit_at_end_of_input",
    "PROTO-6",
    "The server exits promptly once its standard input ends",
    "the server keeps running once its standard input has ended (its main waits on something else than stdin)",
    should=True,
    stdio=True,
)
def _() -> None:
    import anyio  # noqa: PLC0415

    from ccweb_reference import cli  # noqa: PLC0415

    serve_stdio = cli.serve_stdio

    async def serve(built: Any) -> None:
        await serve_stdio(built)
        await anyio.sleep(3600)

    cli.serve_stdio = serve
