"""Mutants killed by scenarios of features/ccweb_features/ac08_exact_results.feature."""

from __future__ import annotations

import dataclasses
from typing import Any

from ccweb_reference import tool
from ccweb_reference.core import Candidate
from mutants.patching import _ORIGINAL_LIST, _core, _is_int, _reformat, _wrap_candidate
from mutants.registry import mutant


@mutant(
    "no_truncated_flag",
    "BUD-2 RES-2",
    "The whole result when the oldest returned input is cut",
    "a cut item is not marked truncated",
)
def _() -> None:
    _core(mark_truncated=False)


@mutant(
    "empty_item_at_zero",
    "BUD-3",
    "A budget used up exactly adds no empty item",
    "with the budget used up exactly, an empty truncated item is still added",
)
def _() -> None:
    _core(stop_at_zero=False)


@mutant(
    "fill_after_cut",
    "BUD-2",
    "After a cut, older inputs that would fit are not added",
    "after the cut the walk goes on and adds older inputs that still fit",
)
def _() -> None:
    _core(overflow="cut-and-fill")


@mutant(
    "has_more_ignores_window",
    "RES-3",
    "hasMore tells whether any candidate was left out or cut [2-1000-true-2]",
    "hasMore only looks inside the limit window",
)
def _() -> None:
    _core(has_more="window")


@mutant(
    "timestamp_reformatted",
    "RES-5",
    "messageId and createdAt are copied as stored",
    "createdAt is re-emitted by datetime.isoformat() (Z becomes +00:00)",
)
def _() -> None:
    _wrap_candidate(lambda m, c: None if c is None else dataclasses.replace(c, created_at=_reformat(c.created_at)))


@mutant(
    "no_created_at_fallback",
    "RES-5",
    "messageId and createdAt are copied as stored",
    "createdAt ignores the stored createdAt field when timestamp is missing",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        if found is None:
            return None
        timestamp = message.get("timestamp")
        return dataclasses.replace(found, created_at=timestamp if isinstance(timestamp, str) and timestamp else None)

    _wrap_candidate(wrap)


@mutant(
    "message_id_from_number",
    "RES-4",
    "messageId and createdAt are copied as stored",
    "a numeric stored id becomes messageId as a string",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        if found is not None and _is_int(message.get("id")):
            return dataclasses.replace(found, message_id=str(message["id"]))
        return found

    _wrap_candidate(wrap)


@mutant(
    "has_more_as_number",
    "RES-1",
    "The whole result when the oldest returned input is cut",
    "hasMore is the number 1 or 0 instead of a boolean",
)
def _() -> None:
    def list_user_inputs(*args: Any) -> dict[str, Any]:
        result = _ORIGINAL_LIST(*args)
        result["hasMore"] = int(result["hasMore"])
        return result

    tool.list_user_inputs = list_user_inputs


@mutant(
    "truncated_as_number",
    "RES-2",
    "The whole result when the oldest returned input is cut",
    "items[].truncated is the number 1 or 0 instead of a boolean",
)
def _() -> None:
    def list_user_inputs(*args: Any) -> dict[str, Any]:
        result = _ORIGINAL_LIST(*args)
        for item in result["items"]:
            item["truncated"] = int(item["truncated"])
        return result

    tool.list_user_inputs = list_user_inputs


@mutant(
    "empty_id_kept",
    "RES-4",
    "messageId and createdAt are copied as stored",
    'an empty stored id is returned as "" instead of null',
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        if found is not None and message.get("id") == "":
            return dataclasses.replace(found, message_id="")
        return found

    _wrap_candidate(wrap)


@mutant(
    "empty_has_more",
    "RES-6",
    "A conversation without candidates is an empty success",
    "hasMore is true when nothing at all was returned",
)
def _() -> None:
    _core(has_more="or-empty")
