"""Mutants killed by scenarios of features/ccweb_features/ac06_limits_and_budget.feature."""

from __future__ import annotations

import dataclasses
from typing import Any

from mutants.patching import _ORIGINAL_PARSE, _core, _is_int, _wrap_call_tool, _wrap_parse
from mutants.registry import mutant


@mutant(
    "budget_from_oldest",
    "BUD-1",
    "The budget is not spent on the oldest inputs first",
    "the budget is spent from the oldest candidate to newer ones",
)
def _() -> None:
    _core(spend="oldest-first")


@mutant(
    "budget_per_item",
    "BUD-4",
    "Inputs that fit are returned whole, newest first, within the budget",
    "maxChars bounds each item instead of the total",
)
def _() -> None:
    _core(budget="per-item")


@mutant(
    "skip_instead_of_cut",
    "BUD-2",
    "The total never exceeds maxChars, even with one long input",
    "a message that does not fit is skipped (older ones that fit are added) instead of cut",
)
def _() -> None:
    _core(overflow="skip")


@mutant(
    "total_counts_original",
    "BUD-4",
    "The total never exceeds maxChars, even with one long input",
    "totalChars sums originalChars",
)
def _() -> None:
    _core(total_of="originalChars")


@mutant(
    "has_more_ignores_truncation",
    "RES-3",
    "The total never exceeds maxChars, even with one long input",
    "hasMore is false when the only thing left out is the cut part of an item",
)
def _() -> None:
    _core(has_more="left-out")


@mutant("default_limit_10", "ARG-1", "Defaults are applied and echoed", "limit defaults to 10")
def _() -> None:
    _wrap_parse(lambda a: _ORIGINAL_PARSE({"limit": 10, **a}))


@mutant("default_max_chars_500", "ARG-1", "Defaults are applied and echoed", "maxChars defaults to 500")
def _() -> None:
    _wrap_parse(lambda a: _ORIGINAL_PARSE({"maxChars": 500, **a}))


@mutant(
    "limit_up_to_100",
    "ARG-2",
    "Values outside the bounds are rejected, not clamped [limit-51]",
    "limit accepts up to 100",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        limit = arguments.get("limit")
        if _is_int(limit) and 50 < limit <= 100:
            parsed = _ORIGINAL_PARSE({k: v for k, v in arguments.items() if k != "limit"})
            return dataclasses.replace(parsed, limit=limit)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "out_of_range_clamped",
    "ARG-2",
    "Values outside the bounds are rejected, not clamped",
    "out-of-range limit and maxChars are clamped into range",
)
def _() -> None:
    bounds = {"limit": (1, 50), "maxChars": (1, 1000)}

    def parse(arguments: dict[str, Any]) -> Any:
        for name, (low, high) in bounds.items():
            if _is_int(arguments.get(name)):
                arguments[name] = min(max(arguments[name], low), high)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "requested_limit_raw",
    "ARG-1",
    "Defaults are applied and echoed",
    "requestedLimit echoes the raw argument (null when it was not given)",
)
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if not is_error:
            result["requestedLimit"] = (arguments or {}).get("limit")
        return result, is_error

    _wrap_call_tool(wrap)


@mutant(
    "integers_wrap_to_int32",
    "ARG-2",
    "Values outside the bounds are rejected, not clamped [limit-4294967311]",
    "limit and maxChars are parsed into a 32-bit integer (Go's int32): 4294967311 wraps to 15",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            if _is_int(arguments.get(name)):
                arguments[name] = (int(arguments[name]) + 2**31) % 2**32 - 2**31
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)
