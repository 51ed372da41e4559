"""Catalogued mistakes: the answer a server that makes one of them gives, to charge its failure to one rule.

A server that counts UTF-16 code units fails scenarios about emoji, the budget and ZWJ families, and
each failure would be charged to the requirements of the fields that differ (UNI-1, UNI-2, BUD-1):
a team's baseline entry for the one known bug would not hold the gate. Where the server's answer is
exactly what one catalogued mistake produces (:data:`MISTAKES`, read from ``mistakes.yaml``: the
contract's walk under one changed setting, :class:`Walk`), and no mistake of another rule produces
it too, the failure is charged to that mistake's rule alone. Any other difference is charged as
before, so a baseline entry never hides a second bug.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from importlib.resources import files
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.oracle import pristine_reference
from ccweb_conformance.checks.outcome import ToolOutcome, contract_differences
from ccweb_spec import yaml_data

__all__ = [
    "MISTAKES",
    "UNITS",
    "Mistake",
    "Unit",
    "Walk",
    "answer_of_candidates",
    "answer_under",
    "charged_mistake",
    "mistaken_requirement",
]

_ZWJ_CLUSTER = re.compile(".(?:\u200d.)*", re.DOTALL)


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-le", "surrogatepass")


Unit = tuple[Callable[[str], int], Callable[[str, int], str]]
"""How a length is counted, and how a text is cut to a length."""

UNITS: Mapping[str, Unit] = {
    "code-point": (len, lambda text, n: text[:n]),
    "utf16": (
        lambda text: len(_utf16(text)) // 2,
        lambda text, n: _utf16(text)[: 2 * n].decode("utf-16-le", "surrogatepass"),
    ),
    "utf8": (
        lambda text: len(text.encode("utf-8", "surrogatepass")),
        lambda text, n: text.encode("utf-8", "surrogatepass")[:n].decode("utf-8", "ignore"),
    ),
    "zwj-cluster": (
        lambda text: len(_ZWJ_CLUSTER.findall(text)),
        lambda text, n: "".join(_ZWJ_CLUSTER.findall(text)[:n]),
    ),
}
"""The units, by name."""

HAS_MORE: Mapping[str, Callable[[int, int, int, int], bool]] = {
    "left-out-or-cut": lambda found, window, items, whole: whole < found,
    "left-out": lambda found, window, items, whole: items < found,
    "window": lambda found, window, items, whole: whole < window,
    "or-empty": lambda found, window, items, whole: items == 0 or whole < found,
}
"""How ``hasMore`` is told from the numbers of candidates, of the window's, of items and of items not marked
truncated: the contract's (``left-out-or-cut``), and mistakes' (a cut unseen, only the window counted, true when
nothing is returned)."""


@dataclass(frozen=True)
class Walk:
    """The settings of the selection and budget walk (D-2, D-4); the defaults are the contract's."""

    unit: str | Unit = "code-point"
    """A name of :data:`UNITS`, or a unit of its own."""
    window: str = "newest"
    """Which ``limit`` candidates: ``newest`` or ``oldest``."""
    spend: str = "newest-first"
    """The order the budget is spent in: ``newest-first`` or ``oldest-first``."""
    budget: str = "total"
    """``total`` (maxChars bounds the sum) or ``per-item``."""
    overflow: str = "cut-and-stop"
    """What the first input that does not fit gets: ``cut-and-stop``, ``skip`` or ``cut-and-fill``."""
    stop_at_zero: bool = True
    order: str = "oldest-first"
    """The order of the returned items: ``oldest-first`` or ``newest-first``."""
    total_of: str = "contentChars"
    mark_truncated: bool = True
    """False: no item is marked truncated, even a cut one."""
    has_more: str = "left-out-or-cut"
    """A name of :data:`HAS_MORE`."""
    returned_count_offset: int = 0
    """Added to ``returnedCount``."""


def _unit(walk: Walk) -> Unit:
    return UNITS[walk.unit] if isinstance(walk.unit, str) else walk.unit


@dataclass(frozen=True)
class Mistake:
    """One catalogued mistake: the rule it breaks and the walk that makes it."""

    id: str
    requirement: str
    walk: Walk
    text: str
    text_zh: str


def _catalogue() -> tuple[Mistake, ...]:
    data = yaml_data(files("ccweb_conformance.checks").joinpath("mistakes.yaml").read_text(encoding="utf-8"))
    known, mistakes = {f.name for f in fields(Walk)}, data["mistakes"]
    for entry in mistakes:
        unknown = set(entry["walk"]) - known
        if unknown:
            raise ValueError(f"mistake {entry['id']}: unknown walk settings {sorted(unknown)}")
    return tuple(Mistake(m["id"], m["requirement"], Walk(**m["walk"]), m["text"], m["text_zh"]) for m in mistakes)


MISTAKES = _catalogue()


def _item(candidate: Any, content: str, walk: Walk) -> dict[str, Any]:
    length = _unit(walk)[0]
    returned, original = length(content), length(candidate.content)
    return {
        "messageId": candidate.message_id,
        "createdAt": candidate.created_at,
        "content": content,
        "contentChars": returned,
        "originalChars": original,
        "truncated": walk.mark_truncated and returned < original,
    }


def _picked(walked: Sequence[Any], max_chars: int, walk: Walk) -> list[dict[str, Any]]:
    """The items chosen, in walk order."""
    length, cut = _unit(walk)
    remaining, picked = max_chars, []
    for candidate in walked:
        if walk.budget == "per-item":
            picked.append(_item(candidate, cut(candidate.content, max_chars), walk))
            continue
        if remaining == 0 and walk.stop_at_zero:
            break
        size = length(candidate.content)
        if size <= remaining:
            picked.append(_item(candidate, candidate.content, walk))
            remaining -= size
        elif walk.overflow != "skip":
            picked.append(_item(candidate, cut(candidate.content, remaining), walk))
            if walk.overflow == "cut-and-stop":
                break
    return picked


def answer_under(
    walk: Walk, conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int
) -> dict[str, Any]:
    """The success object a server walking as ``walk`` says gives for ``messages`` (the contract's with ``Walk()``)."""
    found = pristine_reference()["core"].candidates(messages)
    return answer_of_candidates(walk, conversation_id, found, limit, max_chars)


def answer_of_candidates(
    walk: Walk, conversation_id: str, found: Sequence[Any], limit: int, max_chars: int
) -> dict[str, Any]:
    """As :func:`answer_under`, from the candidates ``found`` (each with ``content``, ``message_id`` and
    ``created_at``), in stored order."""
    window = found[-limit:] if walk.window == "newest" else found[:limit]
    walked = list(reversed(window)) if walk.spend == "newest-first" else list(window)
    picked = _picked(walked, max_chars, walk)
    whole = sum(item["truncated"] is False for item in picked)
    stored_order = picked[::-1] if walk.spend == "newest-first" else picked
    items = stored_order if walk.order == "oldest-first" else stored_order[::-1]
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": limit,
        "maxChars": max_chars,
        "totalChars": sum(item[walk.total_of] for item in items),
        "returnedCount": len(items) + walk.returned_count_offset,
        "hasMore": HAS_MORE[walk.has_more](len(found), len(window), len(items), whole),
        "items": items,
    }


def mistaken_requirement(
    actual: Mapping[str, Any], conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int
) -> str | None:
    """The one rule whose catalogued mistakes give exactly ``actual`` (a success object), or None.

    None when the contract's own answer is ``actual``, when no mistake gives it, or when mistakes of
    two rules give it (the answer does not tell which rule was broken).
    """
    if not contract_differences(answer_under(Walk(), conversation_id, messages, limit, max_chars), actual):
        return None
    rules = {
        mistake.requirement
        for mistake in MISTAKES
        if not contract_differences(answer_under(mistake.walk, conversation_id, messages, limit, max_chars), actual)
    }
    return rules.pop() if len(rules) == 1 else None


def charged_mistake(outcome: ToolOutcome, sessions_dir: Path, source: str | None) -> str | None:
    """The one rule a catalogued mistake explains ``outcome`` by (see :func:`mistaken_requirement`), read as the
    contract reads the call's arguments and stored file now; None when it is no success or none explains it."""
    if outcome.result.get("ok") is not True or outcome.exchange.request is None:
        return None
    reference = pristine_reference()
    try:
        parsed = reference["arguments"].parse_arguments(outcome.arguments)
        conversation_id = reference["tool"].target_conversation(parsed.conversation_id, source)
        messages = reference["store"].SessionStore(sessions_dir).read_messages(conversation_id)
    except reference["core"].ToolError:
        return None
    return mistaken_requirement(outcome.result, conversation_id, messages, parsed.limit, parsed.max_chars)
