"""Mutants killed by scenarios of features/ccweb_features/errors.feature."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ccweb_reference import store, wire
from ccweb_reference.core import ToolError
from mutants.patching import Handler, _result, _text, _transform_call_result, _wrap_call_tool, _wrap_handler
from mutants.registry import mutant


def _on_unknown_tool(answer: Callable[[MCPError], types.CallToolResult]) -> None:
    """A call the SDK refuses (an unknown tool: ``MCPError``) is answered by ``answer`` instead of a JSON-RPC error."""

    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            try:
                return await handler(ctx, params)
            except MCPError as error:
                return answer(error)

        return call

    _wrap_handler("tools/call", wrap)


@mutant(
    "unreadable_as_not_found",
    "STO-1 ERR-1",
    "An unreadable conversation is reported with its own code",
    "a file that cannot be used is reported as conversation_not_found",
)
def _() -> None:
    original = store.SessionStore.read_messages

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        try:
            return original(self, conversation_id)
        except ToolError as error:
            if error.code == "conversation_unreadable":
                raise self._not_found(conversation_id) from None
            raise

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "errors_not_flagged",
    "ERR-1",
    "Every error is flagged and shaped the same way",
    "error results do not set isError",
)
def _() -> None:
    _transform_call_result(lambda r: _result(r, is_error=False))


@mutant("success_flagged", "ERR-2", "A success does not set isError", "success results set isError true")
def _() -> None:
    _transform_call_result(lambda r: _result(r, is_error=True))


@mutant(
    "unregistered_error_code",
    "ERR-1",
    'Every error is flagged and shaped the same way [{"conversationId": "{alpha}-nope"}-conversation_not_found]',
    'conversation_not_found is reported as "not_found", a code outside the registry',
)
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if is_error and result["error"]["code"] == "conversation_not_found":
            result["error"]["code"] = "not_found"
        return result, is_error

    _wrap_call_tool(wrap)


@mutant("empty_error_message", "ERR-1", "Every error is flagged and shaped the same way", "error.message is empty")
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if is_error:
            result["error"]["message"] = ""
        return result, is_error

    _wrap_call_tool(wrap)


@mutant(
    "unknown_tool_as_tool_error",
    "ERR-3",
    "An unknown tool is a JSON-RPC error, never a result, and the server keeps serving",
    "an unknown tool name is answered with an isError tool result instead of a JSON-RPC error",
)
def _() -> None:
    def as_tool_error(error: MCPError) -> types.CallToolResult:
        obj = {"ok": False, "error": {"code": "invalid_arguments", "message": str(error)}}
        return types.CallToolResult(content=[_text(wire.dumps(obj))], structured_content=obj, is_error=True)

    _on_unknown_tool(as_tool_error)


@mutant(
    "unknown_tool_as_success",
    "ERR-3",
    "An unknown tool is a JSON-RPC error, never a result, and the server keeps serving",
    "an unknown tool name falls through to a default branch that answers a plain success (no isError)",
)
def _() -> None:
    _on_unknown_tool(lambda error: types.CallToolResult(content=[_text(str(error))]))


@mutant(
    "dies_after_unknown_tool",
    "ERR-3 PROTO-2",
    "An unknown tool is a JSON-RPC error, never a result, and the server keeps serving",
    "the server ends the connection after a call to an unknown tool",
)
def _() -> None:
    def end_the_server(error: MCPError) -> types.CallToolResult:
        raise SystemExit(1) from None

    _on_unknown_tool(end_the_server)
