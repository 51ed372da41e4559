"""The reference's answer with ``hasMore`` wrong in one combination, for the fakes that need a bug
only the fuzz phase finds: ``limit`` equals the number of candidates and the newest one is truncated
(the fixed scenarios never hit it; the fuzzer's arguments aim at it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ccweb_reference import core


def has_more_wrong(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
    """The reference's answer, with ``hasMore: false`` in that one combination."""
    result = core.list_user_inputs(conversation_id, messages, limit, max_chars)
    items = result["items"]
    if limit == len(core.candidates(messages)) and items and items[-1]["truncated"]:
        result["hasMore"] = False
    return result
