"""Patching helpers: how a mutant or variant changes the reference modules of this process.

The helpers wrap the reference's functions where they are USED (see the registry's notes); ``_core``
serves the budget walk as ``ccweb_conformance.checks.mistakes.Walk`` walks it, with one setting changed per
mutant.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import mcp_types as types

import ccweb_reference.cli
from ccweb_conformance.checks.mistakes import Walk, answer_of_candidates
from ccweb_reference import core, server, store, tool
from ccweb_reference.core import Candidate, ToolError

_ORIGINAL_BUILD_SERVER = server.build_server


_ORIGINAL_CALL_TOOL = tool.call_tool


_ORIGINAL_PARSE = tool.parse_arguments


_ORIGINAL_TARGET = tool.target_conversation


_ORIGINAL_LIST = tool.list_user_inputs


_ORIGINAL_CANDIDATE_OF = core.candidate_of


_ORIGINAL_PARSE_CONVERSATION = store.parse_conversation


_BOM = b"\xef\xbb\xbf"


_SURROGATE = re.compile("[\ud800-\udfff]")


def _set_build_server(build: Callable[..., Any]) -> None:
    """Replace ``build_server`` wherever it is used: server, cli and the in-process transport."""
    server.build_server = build  # type: ignore[assignment]
    ccweb_reference.cli.build_server = build  # type: ignore[assignment]
    try:
        from ccweb_conformance.transport import inprocess  # noqa: PLC0415
    except ImportError:  # pragma: no cover - serve mode without the runner
        return
    inprocess.build_server = build  # type: ignore[assignment]


Handler = Callable[[Any, Any], Any]


def _wrap_handler(method: str, wrap: Callable[[Handler], Handler]) -> None:
    """Wrap the low-level handler of ``method`` on every server built from now on."""

    def build(store_: Any, binding: Any) -> Any:
        built = _ORIGINAL_BUILD_SERVER(store_, binding)
        entry = built.get_request_handler(method)
        built.add_request_handler(method, entry.params_type, wrap(entry.handler))
        return built

    _set_build_server(build)


def _transform_call_result(transform: Callable[[types.CallToolResult], types.CallToolResult]) -> None:
    """Post-process every tools/call result (placement, isError)."""

    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            return transform(await handler(ctx, params))

        return call

    _wrap_handler("tools/call", wrap)


def _result(result: types.CallToolResult, **changes: Any) -> types.CallToolResult:
    fields = {
        "content": result.content,
        "structured_content": result.structured_content,
        "is_error": result.is_error,
    }
    if result.meta is not None:
        fields["meta"] = result.meta
    fields.update(changes)
    return types.CallToolResult(**{k: v for k, v in fields.items() if v is not None})


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _edit_tool(edit: Callable[[dict[str, Any]], None]) -> None:
    """Replace the tool definition the server lists with an edited copy."""
    definition = copy.deepcopy(server.TOOL)
    edit(definition)
    server.TOOL = definition


def _wrap_call_tool(wrap: Callable[[tuple[dict[str, Any], bool], Any], tuple[dict[str, Any], bool]]) -> None:
    """Post-process ``(result object, is_error)`` of every call (``arguments`` passed along)."""

    def call_tool(store_: Any, arguments: Any, source: str | None) -> tuple[dict[str, Any], bool]:
        return wrap(_ORIGINAL_CALL_TOOL(store_, arguments, source), arguments)

    server.call_tool = call_tool  # type: ignore[assignment]


def _wrap_parse(wrap: Callable[[Mapping[str, Any]], Any]) -> None:
    """Replace argument parsing; ``wrap`` gets the arguments as a dict (None -> {})."""

    def parse_arguments(arguments: Mapping[str, Any] | None) -> Any:
        if arguments is None or not isinstance(arguments, Mapping):
            return _ORIGINAL_PARSE(arguments)
        return wrap(dict(arguments))

    tool.parse_arguments = parse_arguments  # type: ignore[assignment]


def _wrap_candidate(wrap: Callable[[Any, Candidate | None], Candidate | None]) -> None:
    """Change which candidate a stored message yields (``core.candidates`` looks it up)."""

    def candidate_of(message: Any) -> Candidate | None:
        return wrap(message, _ORIGINAL_CANDIDATE_OF(message))

    core.candidate_of = candidate_of


def _invalid(field: str) -> ToolError:
    return ToolError("invalid_arguments", f"invalid argument {field!r}", field=field)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unreadable(message: str = "the conversation file cannot be used") -> ToolError:
    return ToolError("conversation_unreadable", message)


def walked(walk: Walk) -> Callable[[str, Sequence[Any], int, int], dict[str, Any]]:
    """``list_user_inputs`` walking as ``walk`` does, on the candidates of this process's ``core`` (as patched)."""

    def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
        return answer_of_candidates(walk, conversation_id, core.candidates(messages), limit, max_chars)

    return list_user_inputs


def _core(**changes: Any) -> None:
    """The reference's walk, re-implemented as the runner's catalogued mistakes walk (``Walk``), with ``changes``."""
    tool.list_user_inputs = walked(Walk(**changes))


def stored_path(store_: store.SessionStore, conversation_id: str) -> str:
    """``<id>.json`` in the sessions directory's real path: where a store that opens by path looks."""
    return os.path.join(store_.root, f"{conversation_id}.json")


def _before(method: str, action: Callable[[store.SessionStore, str], None]) -> None:
    """``SessionStore.<method>(conversation_id, ...)`` does ``action(store, conversation_id)`` first (which may raise
    to answer otherwise), then goes on as the reference does."""
    original = getattr(store.SessionStore, method)

    def first(self: store.SessionStore, conversation_id: str, *rest: Any) -> Any:
        action(self, conversation_id)
        return original(self, conversation_id, *rest)

    setattr(store.SessionStore, method, first)


def _reformat(timestamp: str | None) -> str | None:
    if timestamp is None:
        return None
    try:
        return datetime.fromisoformat(timestamp).isoformat()
    except ValueError:
        return timestamp


def _rewrite_field(new_field: Callable[[str | None], str | None]) -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        try:
            return _ORIGINAL_PARSE(arguments)
        except ToolError as error:
            raise ToolError(error.code, error.message, field=new_field(error.field)) from None

    _wrap_parse(parse)


def _after_read(action: Callable[[store.SessionStore, str], None]) -> None:
    original = store.SessionStore.read_messages

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        messages = original(self, conversation_id)
        action(self, conversation_id)
        return messages

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


def _add_extras(result: dict[str, Any]) -> dict[str, Any]:
    if result.get("ok"):
        result["source"] = "variant"
        result["oldestShown"] = 0
        for item in result["items"]:
            item["role"] = "user"
            item["index"] = 7
    else:
        result["error"]["details"] = {"hint": "extra"}
        result["error"]["retryable"] = False
        result["requestId"] = "r-1"
    return result


def _reverse_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reverse_keys(v) for v in value]
    return value


Incoming = Callable[[Any], Any]
"""Gets one item of the server's read stream (a SessionMessage or a parse error); returns what the
SDK gets instead, an awaitable-free replacement, or a reply object (``Reply``) to send back."""


@dataclass(frozen=True)
class Reply:
    """Send ``message`` (a JSON-RPC model, possibly malformed) instead of handing the item to the SDK."""

    message: Any


def _filter_incoming(change: Incoming) -> None:
    """Below the SDK: change (or answer) every incoming item before the server loop sees it."""
    import anyio  # noqa: PLC0415
    from mcp.shared.message import SessionMessage  # noqa: PLC0415

    def build(store_: Any, binding: Any) -> Any:
        built = _ORIGINAL_BUILD_SERVER(store_, binding)
        serve = built.run

        async def run(read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> Any:
            sender, receiver = anyio.create_memory_object_stream[Any](0)

            async def pump() -> None:
                async with sender:
                    async for item in read_stream:
                        changed = change(item)
                        if isinstance(changed, Reply):
                            await write_stream.send(SessionMessage(changed.message))
                            continue
                        await sender.send(changed)

            async with anyio.create_task_group() as group:
                group.start_soon(pump)
                await serve(receiver, write_stream, *args, **kwargs)
                group.cancel_scope.cancel()

        built.run = run
        return built

    _set_build_server(build)
