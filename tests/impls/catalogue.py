"""The catalogue: broken implementations (mutants) and allowed variants of the reference.

Each entry patches the reference modules of the *current process* (``apply()``), so that
``ccweb-conformance run --in-process`` (or the reference's stdio server started by
``run.py serve``) runs the changed implementation. Names are patched where they are USED:
``ccweb_reference.tool`` holds ``list_user_inputs``, ``parse_arguments``, ``clean_id`` and
``target_conversation``; ``ccweb_reference.server`` holds ``call_tool``, ``wire`` and ``TOOL``;
``build_server`` is imported by ``ccweb_reference.cli`` and by the runner's in-process
transport, so server-level changes replace it in all three places.

A mutant has exactly one bug, names the requirement(s) it breaks and the scenario expected
to fail (``killed_by``: a scenario name as in the JSON report; without `` [...]`` it matches
every example row of an outline). ``should=True`` marks a SHOULD-level bug: the suite only
warns about it, so it is run with ``--strict``.

A variant is a different but conforming implementation: it must pass. ``warnings`` lists the
SHOULD requirements it deliberately gives up (their scenarios must be warnings, nothing else).
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

import ccweb_reference.cli
import ccweb_spec
from ccweb_reference import core, server, store, tool, wire
from ccweb_reference.core import Candidate, ToolError

Apply = Callable[[], None]


@dataclass(frozen=True)
class Mutant:
    """A deliberately broken implementation: one bug, caught by a named scenario."""

    name: str
    description: str
    requirements: tuple[str, ...]
    killed_by: str
    apply: Apply
    should: bool = False


@dataclass(frozen=True)
class Variant:
    """An allowed difference: the suite must pass it (SHOULD warnings listed in ``warnings``)."""

    name: str
    description: str
    apply: Apply
    warnings: tuple[str, ...] = ()


MUTANTS: dict[str, Mutant] = {}
VARIANTS: dict[str, Variant] = {}


def mutant(
    name: str, requirements: str, killed_by: str, description: str, *, should: bool = False
) -> Callable[[Apply], Apply]:
    """Register the decorated patch function as a mutant."""

    def register(apply: Apply) -> Apply:
        MUTANTS[name] = Mutant(name, description, tuple(requirements.split()), killed_by, apply, should)
        return apply

    return register


def variant(name: str, description: str, *, warnings: str = "") -> Callable[[Apply], Apply]:
    """Register the decorated patch function as a variant."""

    def register(apply: Apply) -> Apply:
        VARIANTS[name] = Variant(name, description, apply, tuple(warnings.split()))
        return apply

    return register


def scenario_matches(killed_by: str, scenario_name: str) -> bool:
    """True if a report scenario name is the one ``killed_by`` names (any row of an outline)."""
    return scenario_name == killed_by or re.sub(r" \[.*\]$", "", scenario_name, flags=re.DOTALL) == killed_by


# ---------------------------------------------------------------------------------------
# patching helpers
# ---------------------------------------------------------------------------------------

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


# --- a configurable core: the reference's budget walk with one knob turned per mutant ---


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf16_cut(text: str, units: int) -> str:
    return text.encode("utf-16-le", "surrogatepass")[: 2 * units].decode("utf-16-le", "surrogatepass")


_CLUSTER = re.compile(".(?:\u200d.)*", re.DOTALL)  # approximate: a ZWJ sequence is one "character"


def _cluster_len(text: str) -> int:
    return len(_CLUSTER.findall(text))


def _cluster_cut(text: str, clusters: int) -> str:
    return "".join(_CLUSTER.findall(text)[:clusters])


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _utf8_cut(text: str, size: int) -> str:
    return text.encode("utf-8", "surrogatepass")[:size].decode("utf-8", "ignore")


def _reference_has_more(found: Sequence[Candidate], window: Sequence[Candidate], items: list[dict[str, Any]]) -> bool:
    return sum(1 for item in items if not item["truncated"]) < len(found)


@dataclass(frozen=True)
class Knobs:
    """The reference's choices; each mutant turns exactly one."""

    length: Callable[[str], int] = len
    cut: Callable[[str, int], str] = lambda text, n: text[:n]
    window_of_newest: bool = True
    spend_from_newest: bool = True
    total_budget: bool = True
    mark_truncated: bool = True
    stop_at_zero: bool = True
    on_overflow: str = "cut-and-stop"  # or "skip" (no truncation), "cut-and-fill" (walk on)
    output_oldest_first: bool = True
    has_more: Callable[[Sequence[Candidate], Sequence[Candidate], list[dict[str, Any]]], bool] = _reference_has_more
    returned_count_offset: int = 0
    total_of: str = "contentChars"


def _engine(knobs: Knobs) -> Callable[..., dict[str, Any]]:
    def item(candidate: Candidate, content: str) -> dict[str, Any]:
        original = knobs.length(candidate.content)
        returned = knobs.length(content)
        return {
            "messageId": candidate.message_id,
            "createdAt": candidate.created_at,
            "content": content,
            "contentChars": returned,
            "originalChars": original,
            "truncated": knobs.mark_truncated and returned < original,
        }

    def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
        found = core.candidates(messages)
        window = found[-limit:] if knobs.window_of_newest else found[:limit]
        walk = list(reversed(window)) if knobs.spend_from_newest else list(window)
        remaining = max_chars
        picked: list[dict[str, Any]] = []  # in walk order
        for candidate in walk:
            if not knobs.total_budget:
                picked.append(item(candidate, knobs.cut(candidate.content, max_chars)))
                continue
            if remaining == 0 and knobs.stop_at_zero:
                break
            size = knobs.length(candidate.content)
            if size <= remaining:
                picked.append(item(candidate, candidate.content))
                remaining -= size
                continue
            if knobs.on_overflow == "skip":
                continue
            picked.append(item(candidate, knobs.cut(candidate.content, remaining)))
            if knobs.on_overflow == "cut-and-stop":
                break
        in_stored_order = picked[::-1] if knobs.spend_from_newest else picked
        items = in_stored_order if knobs.output_oldest_first else in_stored_order[::-1]
        return {
            "ok": True,
            "conversationId": conversation_id,
            "requestedLimit": limit,
            "maxChars": max_chars,
            "totalChars": sum(i[knobs.total_of] for i in items),
            "returnedCount": len(items) + knobs.returned_count_offset,
            "hasMore": knobs.has_more(found, window, items),
            "items": items,
        }

    return list_user_inputs


def _core(**changes: Any) -> None:
    tool.list_user_inputs = _engine(Knobs(**changes))


# ---------------------------------------------------------------------------------------
# MUTANTS
# ---------------------------------------------------------------------------------------

# --- AC-7: counting ---


@mutant("utf16_units", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-16 code units")
def _() -> None:
    _core(length=_utf16_len, cut=_utf16_cut)


@mutant("utf8_bytes", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-8 bytes")
def _() -> None:
    _core(length=_utf8_len, cut=_utf8_cut)


@mutant(
    "grapheme_clusters",
    "UNI-2",
    "A ZWJ family counts each code point and may be cut inside",
    "lengths in (approximate) grapheme clusters: a ZWJ sequence counts one",
)
def _() -> None:
    _core(length=_cluster_len, cut=_cluster_cut)


@mutant(
    "lone_surrogate_mangled",
    "UNI-3",
    "A lone surrogate counts one and comes back intact",
    "lone surrogates in content are replaced by U+FFFD",
)
def _() -> None:
    def list_user_inputs(*args: Any) -> dict[str, Any]:
        result = _ORIGINAL_LIST(*args)
        for item in result["items"]:
            item["content"] = _SURROGATE.sub("\ufffd", item["content"])
        return result

    tool.list_user_inputs = list_user_inputs


# --- AC-3: window and order ---


@mutant(
    "newest_first",
    "SEL-7",
    "Twenty inputs give the latest fifteen, oldest first",
    "items are returned newest first",
)
def _() -> None:
    _core(output_oldest_first=False)


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
    _core(window_of_newest=False)


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


# --- AC-6 / AC-8: the budget ---


@mutant(
    "budget_from_oldest",
    "BUD-1",
    "The budget is not spent on the oldest inputs first",
    "the budget is spent from the oldest candidate to newer ones",
)
def _() -> None:
    _core(spend_from_newest=False)


@mutant(
    "budget_per_item",
    "BUD-4",
    "Inputs that fit are returned whole, newest first, within the budget",
    "maxChars bounds each item instead of the total",
)
def _() -> None:
    _core(total_budget=False)


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
    "skip_instead_of_cut",
    "BUD-2",
    "The total never exceeds maxChars, even with one long input",
    "a message that does not fit is skipped (older ones that fit are added) instead of cut",
)
def _() -> None:
    _core(on_overflow="skip")


@mutant(
    "fill_after_cut",
    "BUD-2",
    "After a cut, older inputs that would fit are not added",
    "after the cut the walk goes on and adds older inputs that still fit",
)
def _() -> None:
    _core(on_overflow="cut-and-fill")


@mutant(
    "total_counts_original",
    "BUD-4",
    "The total never exceeds maxChars, even with one long input",
    "totalChars sums originalChars",
)
def _() -> None:
    _core(total_of="originalChars")


@mutant(
    "returned_count_off_by_one",
    "RES-2",
    "Twenty inputs give the latest fifteen, oldest first",
    "returnedCount is one more than the number of items",
)
def _() -> None:
    _core(returned_count_offset=1)


@mutant(
    "has_more_ignores_truncation",
    "RES-3",
    "The total never exceeds maxChars, even with one long input",
    "hasMore is false when the only thing left out is the cut part of an item",
)
def _() -> None:
    _core(has_more=lambda found, window, items: len(items) < len(found))


@mutant(
    "has_more_ignores_window",
    "RES-3",
    "hasMore tells whether any candidate was left out or cut [2-1000-true-2]",
    "hasMore only looks inside the limit window",
)
def _() -> None:
    _core(has_more=lambda found, window, items: sum(1 for i in items if not i["truncated"]) < len(window))


# --- AC-4 / AC-5: candidates ---


@mutant(
    "python_strip_whitespace",
    "SEL-2",
    "Characters that only look blank are content",
    "blank means Python's str.strip() removes everything (U+001C-001F, U+0085 count as blank)",
)
def _() -> None:
    core.is_blank = lambda text: not text.strip()


@mutant(
    "whitespace_messages_kept",
    "SEL-1 SEL-2",
    "A user message made only of whitespace is not a candidate",
    "only the empty string is blank; whitespace-only user messages are candidates",
)
def _() -> None:
    core.is_blank = lambda text: text == ""


@mutant(
    "content_trimmed",
    "SEL-8",
    "Content is returned exactly as stored, surrounding whitespace included",
    "content is returned trimmed",
)
def _() -> None:
    _wrap_candidate(lambda m, c: None if c is None else dataclasses.replace(c, content=c.content.strip()))


@mutant(
    "role_case_insensitive",
    "SEL-1",
    "Assistant, tool and system messages are never returned",
    'role is compared case-insensitively ("USER" is a user)',
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        if found is None and isinstance(message, dict) and str(message.get("role", "")).lower() == "user":
            return _ORIGINAL_CANDIDATE_OF({**message, "role": "user"})
        return found

    _wrap_candidate(wrap)


@mutant(
    "non_string_content_coerced",
    "SEL-3",
    "Entries that are not message objects, and non-string content, are skipped",
    "non-string user content is turned into text (str()) instead of skipped",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        content = message.get("content") if isinstance(message, dict) else None
        if found is None and message.get("role") == "user" and content is not None and not isinstance(content, str):
            return _ORIGINAL_CANDIDATE_OF({**message, "content": str(content)})
        return found

    _wrap_candidate(wrap)


# --- AC-8: echoes of stored fields ---


def _reformat(timestamp: str | None) -> str | None:
    if timestamp is None:
        return None
    try:
        return datetime.fromisoformat(timestamp).isoformat()
    except ValueError:
        return timestamp


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


# --- AC-6 / ARGS: arguments ---


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
    "numeric_strings_coerced",
    "ARG-3",
    'Arguments of the wrong type are rejected, not coerced [limit-"20"]',
    'numeric strings are coerced ("20" -> 20)',
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            value = arguments.get(name)
            if isinstance(value, str) and value.strip().isdigit():
                arguments[name] = int(value)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "booleans_as_integers",
    "ARG-3",
    "Arguments of the wrong type are rejected, not coerced [limit-true]",
    "true and false are taken as 1 and 0",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            if isinstance(arguments.get(name), bool):
                arguments[name] = int(arguments[name])
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "fraction_rejected",
    "ARG-3",
    "An integral number written with a fraction is an integer",
    "15.0 is rejected as not an integer",
)
def _() -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        for name in ("limit", "maxChars"):
            if isinstance(arguments.get(name), float):
                raise _invalid(name)
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@mutant(
    "unknown_arguments_ignored",
    "ARG-4",
    "An unknown argument is rejected and named",
    "unknown properties are dropped instead of rejected",
)
def _() -> None:
    known = set(server.TOOL["inputSchema"]["properties"])
    _wrap_parse(lambda a: _ORIGINAL_PARSE({k: v for k, v in a.items() if k in known}))


def _rewrite_field(new_field: Callable[[str | None], str | None]) -> None:
    def parse(arguments: dict[str, Any]) -> Any:
        try:
            return _ORIGINAL_PARSE(arguments)
        except ToolError as error:
            raise ToolError(error.code, error.message, field=new_field(error.field)) from None

    _wrap_parse(parse)


@mutant(
    "error_field_missing",
    "ARG-5",
    'Arguments of the wrong type are rejected, not coerced [limit-"15"]',
    "invalid_arguments errors carry no field",
)
def _() -> None:
    _rewrite_field(lambda field: None)


@mutant(
    "error_field_as_pointer",
    "ARG-5 ARG-4",
    "An unknown argument is rejected and named",
    'error.field is a JSON pointer ("/limit") instead of the argument name',
)
def _() -> None:
    _rewrite_field(lambda field: f"/{field}")


@mutant(
    "conversation_checked_first",
    "ARG-5",
    "Arguments are checked before the conversation ID",
    "the conversation ID and the file are checked before the arguments",
)
def _() -> None:
    def call_tool(store_: Any, arguments: Any, source: str | None) -> tuple[dict[str, Any], bool]:
        explicit = arguments.get("conversationId") if isinstance(arguments, Mapping) else None
        try:
            store_.read_messages(_ORIGINAL_TARGET(explicit if isinstance(explicit, str) else None, source))
        except ToolError as error:
            return error.to_object(), True
        return _ORIGINAL_CALL_TOOL(store_, arguments, source)

    server.call_tool = call_tool  # type: ignore[assignment]


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


# --- AC-2: which conversation ---


@mutant(
    "empty_explicit_falls_back",
    "SRC-5",
    "An explicit conversationId that cleans to nothing never falls back to the source",
    "an explicit ID that cleans to nothing falls back to the source conversation",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if explicit is not None and not tool.clean_id(explicit):
            return _ORIGINAL_TARGET(None, source)
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "ids_not_cleaned",
    "SRC-4",
    "An explicit conversationId is cleaned before lookup",
    "conversation IDs are used as given",
)
def _() -> None:
    tool.clean_id = lambda raw: raw


@mutant(
    "cleaning_keeps_dots",
    "SRC-4",
    "An explicit conversationId is cleaned before lookup [.{alpha}.]",
    "cleaning keeps '.' and '_' as well as [A-Za-z0-9-]",
)
def _() -> None:
    tool.clean_id = lambda raw: re.sub(r"[^A-Za-z0-9._-]", "", raw)


@mutant(
    "source_not_cleaned",
    "SRC-4",
    "The source conversation ID is cleaned before lookup",
    "the source conversation ID is not cleaned (the explicit one is)",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if explicit is None and source and tool.clean_id(source):
            return source
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "missing_source_code",
    "SRC-3 ERR-1",
    "No conversationId and no source conversation",
    "a missing source is reported as invalid_conversation_id",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        try:
            return _ORIGINAL_TARGET(explicit, source)
        except ToolError as error:
            if error.code == "missing_source_conversation":
                raise ToolError("invalid_conversation_id", error.message) from None
            raise

    tool.target_conversation = target


@mutant(
    "symlink_outside_followed",
    "SRC-7",
    "A symbolic link that leaves the sessions directory is not followed",
    "symbolic links are followed wherever they point",
)
def _() -> None:
    def resolve(self: store.SessionStore, conversation_id: str) -> str:
        try:
            return os.path.realpath(self.root / f"{conversation_id}.json", strict=True)
        except OSError:
            raise self._not_found(conversation_id) from None

    store.SessionStore._resolve = resolve  # type: ignore[method-assign]


@mutant(
    "symlink_inside_refused",
    "SRC-7",
    "A symbolic link that stays inside the sessions directory is followed",
    "every symbolic link is refused, even one that stays inside",
)
def _() -> None:
    original = store.SessionStore._resolve

    def resolve(self: store.SessionStore, conversation_id: str) -> str:
        if os.path.islink(self.root / f"{conversation_id}.json"):
            raise self._not_found(conversation_id)
        return original(self, conversation_id)

    store.SessionStore._resolve = resolve  # type: ignore[method-assign]


@mutant(
    "directory_unreadable",
    "SRC-6",
    "A directory named like a conversation file is not found",
    "a directory named <id>.json is reported as conversation_unreadable",
)
def _() -> None:
    original = store.SessionStore.read_bytes

    def read_bytes(self: store.SessionStore, conversation_id: str) -> bytes:
        if (Path(self.root) / f"{conversation_id}.json").is_dir():
            raise _unreadable("it is a directory")
        return original(self, conversation_id)

    store.SessionStore.read_bytes = read_bytes  # type: ignore[method-assign]


@mutant(
    "long_name_crashes",
    "SRC-6",
    "An ID too long for the file system is not found",
    "only FileNotFoundError means not found; ENAMETOOLONG escapes as an internal error",
)
def _() -> None:
    def resolve(self: store.SessionStore, conversation_id: str) -> str:
        path = self.root / f"{conversation_id}.json"
        try:
            real = os.path.realpath(path, strict=True)
        except FileNotFoundError:
            raise self._not_found(conversation_id) from None
        if os.path.commonpath([real, self.root]) != str(self.root) or real == str(self.root):
            raise self._not_found(conversation_id)
        return real

    store.SessionStore._resolve = resolve  # type: ignore[method-assign]


# --- STORE ---


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
    "trailing_data_accepted",
    "STO-1",
    'A file that is not a UTF-8 JSON object is unreadable [{"messages": [{"role": "user", "content": "ok"}]} trailing]',
    "the file is parsed with raw_decode, so text after the JSON object is ignored",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            document, _end = json.JSONDecoder().raw_decode(data.removeprefix(_BOM).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        return _ORIGINAL_PARSE_CONVERSATION(json.dumps(document).encode())

    store.parse_conversation = parse


@mutant(
    "invalid_utf8_replaced",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "invalid UTF-8 is decoded with replacement characters instead of rejected",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        text = data.removeprefix(_BOM).decode("utf-8", "replace")
        return _ORIGINAL_PARSE_CONVERSATION(text.encode("utf-8"))

    store.parse_conversation = parse


@mutant(
    "bom_not_skipped", "STO-3", "A leading UTF-8 byte-order mark is ignored", "a leading BOM makes the file unreadable"
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        if data.startswith(_BOM):
            raise _unreadable("not JSON")
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse


@mutant(
    "bad_messages_as_empty",
    "STO-2",
    "messages that is not an array, null or absent is unreadable",
    "a messages field that is not an array is taken as no messages",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            return _ORIGINAL_PARSE_CONVERSATION(data)
        except ToolError as error:
            if "messages" in error.message:
                return []
            raise

    store.parse_conversation = parse


@mutant(
    "null_messages_unreadable",
    "STO-2",
    "Absent or null messages mean no messages",
    "messages: null is reported as conversation_unreadable",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        messages = _ORIGINAL_PARSE_CONVERSATION(data)
        document = json.loads(data.removeprefix(_BOM))
        if not isinstance(document.get("messages"), list):
            raise _unreadable("messages is not an array")
        return messages

    store.parse_conversation = parse


# --- AC-9: read-only ---


def _after_read(action: Callable[[store.SessionStore, str], None]) -> None:
    original = store.SessionStore.read_messages

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        messages = original(self, conversation_id)
        action(self, conversation_id)
        return messages

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "marks_read",
    "RO-1",
    "A successful call changes nothing",
    "reading saves the session back with hasUnread false (the load-and-save path)",
)
def _() -> None:
    def mark_read(self: store.SessionStore, conversation_id: str) -> None:
        path = Path(self.root) / f"{conversation_id}.json"
        document = json.loads(path.read_bytes().removeprefix(_BOM))
        document["hasUnread"] = False
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")

    _after_read(mark_read)


@mutant(
    "touches_mtime",
    "RO-1",
    "Many calls in a row change nothing",
    "reading touches the file's modification time",
)
def _() -> None:
    _after_read(lambda self, conversation_id: os.utime(Path(self.root) / f"{conversation_id}.json"))


@mutant(
    "creates_cache_file",
    "RO-2",
    "A successful call changes nothing",
    "reading leaves a cache file in the sessions directory",
)
def _() -> None:
    def write_cache(self: store.SessionStore, conversation_id: str) -> None:
        (Path(self.root) / f".{conversation_id}.read-cache").write_text("{}", encoding="utf-8")

    _after_read(write_cache)


# --- AC-10: regression ---


@mutant(
    "cached_by_id",
    "REG-2",
    "A change to the file is visible in the next call",
    "messages are cached by conversation ID (stale after a change)",
)
def _() -> None:
    original = store.SessionStore.read_messages
    cache: dict[str, list[Any]] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        key = f"{self.root}/{conversation_id}"
        if key not in cache:
            cache[key] = original(self, conversation_id)
        return cache[key]

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


@mutant(
    "cached_by_size_and_mtime",
    "REG-2",
    "A rewrite of the same size and time is visible too",
    "messages are cached by (ID, size, mtime): a same-size rewrite in the same instant is missed",
)
def _() -> None:
    original = store.SessionStore.read_messages
    cache: dict[tuple[str, int, int], list[Any]] = {}

    def read_messages(self: store.SessionStore, conversation_id: str) -> list[Any]:
        try:
            info = os.stat(Path(self.root) / f"{conversation_id}.json")
        except OSError:
            return original(self, conversation_id)
        key = (f"{self.root}/{conversation_id}", info.st_size, info.st_mtime_ns)
        if key not in cache:
            cache[key] = original(self, conversation_id)
        return cache[key]

    store.SessionStore.read_messages = read_messages  # type: ignore[method-assign]


# --- ERRORS and PLACEMENT ---


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
    "An unknown tool is a JSON-RPC error -32602",
    "an unknown tool name is answered with an isError tool result instead of JSON-RPC -32602",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            try:
                return await handler(ctx, params)
            except MCPError as error:
                obj = {"ok": False, "error": {"code": "invalid_arguments", "message": str(error)}}
                return types.CallToolResult(content=[_text(wire.dumps(obj))], structured_content=obj, is_error=True)

        return call

    _wrap_handler("tools/call", wrap)


@mutant(
    "text_disagrees",
    "PLC-2",
    'The result object is found where the contract allows and is consistent [{"conversationId": "{alpha}"}]',
    "the JSON text block has a different totalChars than structuredContent",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        data = dict(result.structured_content or {})
        if data.get("ok"):
            data["totalChars"] += 1
        return _result(result, content=[_text(wire.dumps(data))])

    _transform_call_result(transform)


@mutant(
    "text_not_json_only",
    "PLC-1",
    "The result object is found where the contract allows and is consistent",
    "the result is only a Python repr in a text block (no JSON, no structuredContent)",
)
def _() -> None:
    _transform_call_result(
        lambda r: types.CallToolResult(content=[_text(repr(r.structured_content))], is_error=r.is_error)
    )


@mutant(
    "invalid_content_block",
    "PROTO-1",
    "Every message received is valid MCP for the negotiated revision",
    'an extra content block {"type": "text"} without its text member is sent',
)
def _() -> None:
    broken = types.TextContent.model_construct(type="text")
    _transform_call_result(lambda r: _result(r, content=[*r.content, broken]))


# --- requirements the list above leaves without a mutant ---


@mutant(
    "source_ignored",
    "SRC-1",
    "No conversationId reads the source conversation",
    "without conversationId the source binding is ignored (always missing_source_conversation)",
)
def _() -> None:
    tool.target_conversation = lambda explicit, source: _ORIGINAL_TARGET(explicit, None)


@mutant(
    "source_wins",
    "SRC-2",
    "An explicit conversationId wins over the source conversation",
    "a bound source conversation wins over an explicit conversationId",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if source and tool.clean_id(source):
            return _ORIGINAL_TARGET(None, source)
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "pending_form_included",
    "SEL-4",
    "A card still waiting for the user is not returned",
    "an assistant message holding a guided-form card counts as a user input",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        card = isinstance(message, dict) and message.get("role") == "assistant"
        if found is None and card and '"guided_form"' in str(message.get("content")):
            return _ORIGINAL_CANDIDATE_OF({**message, "role": "user"})
        return found

    _wrap_candidate(wrap)


@mutant(
    "form_answers_skipped",
    "SEL-5",
    "The submitted answer is returned and the card is not",
    'user messages that look like a submitted form ("name: value") are skipped',
)
def _() -> None:
    form_answer = re.compile(r"^[A-Za-z_]+: \S")
    _wrap_candidate(lambda m, c: None if c is not None and form_answer.match(c.content) else c)


@mutant(
    "attachments_skipped",
    "STO-4",
    "Unnamed fields are ignored in a file that also holds entries that are not messages",
    "user messages that carry attachments are skipped",
)
def _() -> None:
    store.typed_messages = lambda data: None  # such a server decodes attachments: whole messages, not the fields read
    _wrap_candidate(lambda m, c: None if c is not None and "attachments" in m else c)


@mutant(
    "paging_state",
    "REG-1",
    "The same call gives the same result every time",
    "a repeated call continues where the previous one stopped (hidden per-conversation cursor)",
)
def _() -> None:
    seen: dict[str, int] = {}

    def list_user_inputs(conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int) -> dict[str, Any]:
        calls = seen.get(conversation_id, 0)
        seen[conversation_id] = calls + 1
        found = core.candidates(messages)
        if calls and found:
            kept = [m for m in messages if core.candidate_of(m) != found[-1]]
            return _ORIGINAL_LIST(conversation_id, kept, limit, max_chars)
        return _ORIGINAL_LIST(conversation_id, messages, limit, max_chars)

    tool.list_user_inputs = list_user_inputs


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
    _core(has_more=lambda found, window, items: not items or _reference_has_more(found, window, items))


@mutant(
    "dies_after_unknown_tool",
    "PROTO-2",
    "The server keeps serving after errors",
    "the server ends the connection after a call to an unknown tool",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def call(ctx: Any, params: Any) -> Any:
            try:
                return await handler(ctx, params)
            except MCPError:
                raise SystemExit(1) from None

        return call

    _wrap_handler("tools/call", wrap)


@mutant(
    "structured_only_strict",
    "PLC-3",
    'The result object is both structured content and JSON text [{"conversationId": "{alpha}"}]',
    "the result is only structuredContent (allowed, but a SHOULD: fails only with --strict)",
    should=True,
)
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[]))


# --- probes: subtler bugs, to find the suite's blind spots ---


@mutant(
    "whitespace_gap_u2001",
    "SEL-2",
    "A user message made only of whitespace is not a candidate",
    "the whitespace set misses U+2001 (a hand-written list with a gap in U+2000-200A)",
)
def _() -> None:
    blank = set(ccweb_spec.whitespace()) - {"\u2001"}
    core.is_blank = lambda text: all(ch in blank for ch in text)


@mutant(
    "cleaning_keeps_underscore",
    "SRC-4",
    "A source conversation that cleans to nothing counts as missing",
    "cleaning uses [^\\w-] (ASCII), which keeps '_'",
)
def _() -> None:
    tool.clean_id = lambda raw: re.sub(r"[^\w-]", "", raw, flags=re.ASCII)


@mutant(
    "ids_lowercased",
    "SRC-4",
    "Upper-case letters in a conversation ID are kept",
    "cleaned conversation IDs are also lower-cased",
)
def _() -> None:
    original = tool.clean_id
    tool.clean_id = lambda raw: original(raw).lower()


@mutant(
    "nan_accepted",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "the file is parsed by Python's default json.loads, which accepts NaN and Infinity",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        try:
            document = json.loads(data.removeprefix(_BOM).decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        if not isinstance(document, dict):
            return _ORIGINAL_PARSE_CONVERSATION(data)
        messages = document.get("messages")
        if messages is not None and not isinstance(messages, list):
            raise _unreadable("messages is not an array")
        return messages or []

    store.parse_conversation = parse


@mutant(
    "wtf8_accepted",
    "STO-1",
    "A file that is not a UTF-8 JSON object is unreadable",
    "the file is decoded with surrogatepass: UTF-8-encoded surrogates (ED A0 80) are accepted",
)
def _() -> None:
    def parse(data: bytes) -> list[Any]:
        raw = data.removeprefix(_BOM)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            try:
                text = raw.decode("utf-8", "surrogatepass")
            except UnicodeDecodeError:
                return _ORIGINAL_PARSE_CONVERSATION(data)
            return _ORIGINAL_PARSE_CONVERSATION(_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode())
        return _ORIGINAL_PARSE_CONVERSATION(data)

    store.parse_conversation = parse


@mutant(
    "crlf_normalized",
    "SEL-8",
    "Content is returned exactly as stored, surrounding whitespace included",
    "CR LF line ends in content are returned as LF",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        return None if found is None else dataclasses.replace(found, content=found.content.replace("\r\n", "\n"))

    _wrap_candidate(wrap)


@mutant(
    "json_blocks_disagree",
    "PLC-2",
    "The result object is found where the contract allows and is consistent",
    "no structuredContent; two JSON text blocks, the second with a different totalChars",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        data = dict(result.structured_content or {})
        other = {**data, "totalChars": data["totalChars"] + 1} if data.get("ok") else {**data, "ok": True}
        blocks = [_text(wire.dumps(data)), _text(wire.dumps(other))]
        return types.CallToolResult(content=blocks, is_error=result.is_error)

    _transform_call_result(transform)


@mutant(
    "touches_run_folder",
    "RO-2",
    "A successful call changes nothing",
    "reading drops a marker file into the conversation's running-state folder <id>-run/",
)
def _() -> None:
    def mark(self: store.SessionStore, conversation_id: str) -> None:
        folder = Path(self.root) / f"{conversation_id}-run"
        if folder.is_dir():
            (folder / "last-read").write_text("x", encoding="utf-8")

    _after_read(mark)


# --- AC-1: the tool definition ---


@mutant(
    "tool_renamed", "TOOL-1", "The tool is listed under its contract name", "the tool is listed as ccweb_list_inputs"
)
def _() -> None:
    _edit_tool(lambda t: t.update(name="ccweb_list_inputs"))


@mutant(
    "schema_limit_max_100",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema declares limit maximum 100",
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"]["properties"]["limit"].update(maximum=100))


@mutant(
    "schema_open",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema does not forbid additional properties",
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"].pop("additionalProperties"))


@mutant(
    "description_without_purpose",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description drops the sentence about checking work against the user's requirements",
)
def _() -> None:
    _edit_tool(lambda t: t.update(description=t["description"].split(" Use it to check")[0]))


@mutant(
    "description_budget_per_item",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description states the 1,000-character budget per input instead of in total",
)
def _() -> None:
    _edit_tool(lambda t: t.update(description=t["description"].replace(" in total,", " for each input,")))


@mutant(
    "no_read_only_hint",
    "TOOL-4",
    "The tool is annotated as read-only",
    "annotations.readOnlyHint is missing (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t["annotations"].pop("readOnlyHint"))


@mutant(
    "no_output_schema",
    "TOOL-5",
    "The declared output schema accepts every result the server returns",
    "no outputSchema is declared (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t.pop("outputSchema"))


@mutant(
    "output_schema_success_only",
    "TOOL-5",
    "The declared output schema accepts every result the server returns",
    "the outputSchema accepts only the success object, not the error object (SHOULD)",
    should=True,
)
def _() -> None:
    def edit(definition: dict[str, Any]) -> None:
        bundled = definition["outputSchema"]
        bundled["oneOf"] = bundled["oneOf"][:1]

    _edit_tool(edit)


@mutant(
    "no_contract_version",
    "PROTO-3",
    "The tool reports the contract version it implements",
    "the tool's _meta has no contract version (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t.pop("_meta"))


# ---------------------------------------------------------------------------------------
# VARIANTS
# ---------------------------------------------------------------------------------------


@variant("reference", "the reference itself, unchanged")
def _() -> None:
    pass


@variant("reimplemented_core", "the budget walk re-implemented (the catalogue's own engine, no knob turned)")
def _() -> None:
    _core()


@variant("text_only", "the result object only as JSON text, no structuredContent", warnings="PLC-3")
def _() -> None:
    _transform_call_result(lambda r: types.CallToolResult(content=r.content, is_error=r.is_error))


@variant("structured_only", "the result object only as structuredContent, no content blocks", warnings="PLC-3")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[]))


@variant("is_error_omitted_on_success", "successes leave isError out instead of sending false")
def _() -> None:
    # The SDK always writes isError, so the member is dropped where the JSON-RPC line is written
    # (stdio and in-process both write through wire.dumps; the runner's requests have no result).
    original = wire.dumps

    def dumps(value: Any) -> str:
        result = value.get("result") if isinstance(value, dict) else None
        if isinstance(result, dict) and result.get("isError") is False:
            value = {**value, "result": {k: v for k, v in result.items() if k != "isError"}}
        return original(value)

    wire.dumps = dumps


@variant("pretty_json_text", "the JSON text is pretty-printed and ASCII-escaped")
def _() -> None:
    _transform_call_result(
        lambda r: _result(r, content=[_text(json.dumps(r.structured_content, indent=2, ensure_ascii=True))])
    )


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


@variant("extra_fields", "extra fields in the result object, in items and in error objects")
def _() -> None:
    _wrap_call_tool(lambda outcome, arguments: (_add_extras(outcome[0]), outcome[1]))


def _reverse_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _reverse_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reverse_keys(v) for v in value]
    return value


@variant("reversed_key_order", "every object's keys in reverse order")
def _() -> None:
    _wrap_call_tool(lambda outcome, arguments: (_reverse_keys(outcome[0]), outcome[1]))


@variant("extra_prose_block", "a prose text block beside the JSON text block")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[_text("Here are the user's inputs:"), *r.content]))


@variant("extra_non_object_json_block", "a text block holding JSON that is not an object (a list) beside the result")
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[*r.content, _text('["see the JSON above"]')]))


@variant(
    "initialize_era_only",
    "an initialize-era server: server/discover is answered -32601 before the SDK sees it, so auto falls back",
)
def _() -> None:
    # Overriding the SDK's server/discover handler is not enough: the SDK commits the
    # connection to 2026-07-28 on the request's envelope and then refuses initialize. An older
    # server never gets that far, so the variant answers the probe below the SDK.
    def build(store_: Any, binding: Any) -> Any:
        built = _ORIGINAL_BUILD_SERVER(store_, binding)
        serve = built.run

        async def run(read_stream: Any, write_stream: Any, *args: Any, **kwargs: Any) -> Any:
            sender, receiver = anyio.create_memory_object_stream[Any](0)

            async def pump() -> None:
                async with sender:
                    async for item in read_stream:
                        message = getattr(item, "message", None)
                        if isinstance(message, types.JSONRPCRequest) and message.method == "server/discover":
                            error = types.ErrorData(code=-32601, message="Method not found")
                            await write_stream.send(
                                SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
                            )
                            continue
                        await sender.send(item)

            async with anyio.create_task_group() as group:
                group.start_soon(pump)
                await serve(receiver, write_stream, *args, **kwargs)
                group.cancel_scope.cancel()

        built.run = run
        return built

    _set_build_server(build)


@variant("fraction_echoed", "an integral fraction (2.0) is echoed as given, 2.0, not 2")
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if not is_error and isinstance(arguments, Mapping):
            for name, echo in (("limit", "requestedLimit"), ("maxChars", "maxChars")):
                if isinstance(arguments.get(name), float):
                    result[echo] = float(arguments[name])
        return result, is_error

    _wrap_call_tool(wrap)


@variant("error_wording", "different error messages (another language)")
def _() -> None:
    def wrap(outcome: tuple[dict[str, Any], bool], arguments: Any) -> tuple[dict[str, Any], bool]:
        result, is_error = outcome
        if is_error:
            result["error"]["message"] = f"Fehler ({result['error']['code']}): Aufruf abgelehnt"
        return result, is_error

    _wrap_call_tool(wrap)


@variant("last_offending_field", "with several wrong arguments, error.field names the last one alphabetically")
def _() -> None:
    validator = ccweb_spec.validator("input")

    def parse(arguments: dict[str, Any]) -> Any:
        fields = sorted(str(e.path[0]) for e in validator.iter_errors(arguments) if e.path)
        if len(fields) > 1:
            raise _invalid(fields[-1])
        return _ORIGINAL_PARSE(arguments)

    _wrap_parse(parse)


@variant("different_meta", "extra keys in the tool's _meta and a _meta on every call result")
def _() -> None:
    _edit_tool(lambda t: t["_meta"].update({"com.example/build": "abc123", "com.example/flags": ["x"]}))
    _transform_call_result(lambda r: _result(r, meta={"com.example/elapsedMs": 3}))


@variant("minimal_annotations", "only readOnlyHint among the annotations, no title")
def _() -> None:
    def edit(definition: dict[str, Any]) -> None:
        definition["annotations"] = {"readOnlyHint": True}
        definition.pop("title", None)

    _edit_tool(edit)
