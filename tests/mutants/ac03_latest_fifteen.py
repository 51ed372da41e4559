"""Mutants killed by scenarios of features/ccweb_features/ac03_latest_fifteen.feature."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ccweb_conformance.transport.versions import MODERN_VERSION
from ccweb_reference import tool, wire
from mutants.patching import _ORIGINAL_LIST, Handler, _core, _result, _text, _wrap_handler
from mutants.registry import mutant


@mutant(
    "newest_first",
    "SEL-7",
    "Twenty inputs give the latest fifteen, oldest first",
    "items are returned newest first",
)
def _() -> None:
    _core(order="newest-first")


@mutant(
    "sorted_by_timestamp",
    "SEL-7",
    "Items keep the stored order, not the timestamps' order",
    "items are sorted by their timestamp instead of kept in stored order",
)
def _() -> None:
    def list_user_inputs(*args: Any) -> dict[str, Any]:
        result = _ORIGINAL_LIST(*args)
        result["items"].sort(key=lambda item: item["createdAt"] or "")
        return result

    tool.list_user_inputs = list_user_inputs


@mutant(
    "oldest_window",
    "SEL-6",
    "Twenty inputs give the latest fifteen, oldest first",
    "the window is the first `limit` candidates, not the last",
)
def _() -> None:
    _core(window="oldest")


@mutant(
    "window_counts_messages",
    "SEL-6",
    "The window counts candidates, not stored messages",
    "the limit window is taken over stored messages before selecting candidates",
)
def _() -> None:
    def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
        return _ORIGINAL_LIST(conversation_id, list(messages)[-limit:], limit, max_chars)

    tool.list_user_inputs = list_user_inputs


@mutant(
    "returned_count_off_by_one",
    "RES-2",
    "Twenty inputs give the latest fifteen, oldest first",
    "returnedCount is one more than the number of items",
)
def _() -> None:
    _core(returned_count_offset=1)


@mutant(
    "newest_first_after_initialize",
    "SEL-7",
    "Twenty inputs give the latest fifteen, oldest first",
    "items are returned newest first, but only on connections that began with initialize (the era clients "
    "use today); 2026-07-28 requests are answered right, so a run testing one era passes it (D-16)",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            result = await handler(ctx, params)
            data = result.structured_content
            if ctx.protocol_version == MODERN_VERSION or not isinstance(data, dict) or "items" not in data:
                return result
            data = {**data, "items": list(reversed(data["items"]))}
            return _result(result, structured_content=data, content=[_text(wire.dumps(data))])

        return call

    _wrap_handler("tools/call", wrap)
