"""The console's failure block: for each failed scenario, what a developer needs to fix it.

The requirement (ID and statement), the check that failed with its first differences as
``path: expected …, got …``, the call that was sent (arguments, source binding), the stored
conversation in short (long texts cut, code points shown for non-ASCII text), and a one-line
hint when the failure matches a well-known mistake (``hints.yaml``). Wording comes from the
messages of the run's language (``block.*`` in ``locales/``), the statement and the
hint in that language too; labels are padded by display width, so Chinese ones line up.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.attribution import placed
from ccweb_conformance.difftext import comparable, cut_pair, first_path
from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, describes, messages, spoken, translated
from ccweb_conformance.reports.diff import MISSING, Difference, differences
from ccweb_conformance.reports.hints import FailureFacts, hint_for
from ccweb_conformance.reports.model import FailureDetail, ScenarioResult, StoredConversation
from ccweb_conformance.reports.rerun_alone import rerun_line
from ccweb_conformance.textwidth import display_width, ljust

__all__ = ["BLOCK_LIMIT", "headline", "reports_line", "scenario_block", "scenario_hint"]

BLOCK_LIMIT = 12
"""Failure blocks shown at most; the rest are counted."""
DIFFERENCE_LIMIT = 4
VALUE_LIMIT = 80
"""Characters of a value shown (JSON, strings)."""
PAIR_LIMIT = 200
"""Characters of an expected/got pair shown on their own rows: a window around the first difference."""
MESSAGE_LIMIT = 60
"""Code points of a stored message shown."""
MESSAGES_SHOWN = 6
CODE_POINTS_SHOWN = 6
_LABELS = (
    "requirement", "check", "differences", "expected", "got", "where", "sent", "source", "stored", "hint", "rerun",
    "alone",
)
_SHOWN_STATUSES = ("failed", "warning")
_HEADS = {"failed": "FAIL", "warning": "WARN"}


def _code_points(value: str, *, notable_only: bool = False) -> str:
    """Distinct non-ASCII code points of a text, e.g. ``U+1F600 U+200B``; with ``notable_only`` only those a
    reader cannot see or tell apart (:func:`notable`): ordinary Chinese or accented text gets none."""
    seen = [c for c in dict.fromkeys(value) if (ord(c) > 0x7E or ord(c) < 0x20) and (notable(c) or not notable_only)]
    shown = " ".join(f"U+{ord(c):04X}" for c in seen[:CODE_POINTS_SHOWN])
    return shown + (" …" if len(seen) > CODE_POINTS_SHOWN else "")


_INVISIBLE = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Categories of characters a reader cannot see, or cannot see apart from their neighbour."""


def notable(char: str) -> bool:
    """Whether a character needs its code point shown: outside the BMP (it counts 1, UTF-16 makes it 2), a lone
    surrogate, invisible (controls, format characters, spaces other than U+0020, combining marks), U+FFFD, or a
    full-width digit or Latin letter (it looks like ASCII). Full-width punctuation is ordinary Chinese text."""
    code = ord(char)
    fullwidth_alphanumeric = 0xFF10 <= code <= 0xFF5A and unicodedata.category(char) in ("Nd", "Lu", "Ll")
    return code > 0xFFFF or unicodedata.category(char) in _INVISIBLE or code == 0xFFFD or fullwidth_alphanumeric


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "backslashreplace").decode("utf-8")


def _cut(shown: str, limit: int = VALUE_LIMIT) -> str:
    return shown if len(shown) <= limit else f"{shown[:limit]}…"


def value(shown: Any, say: Messages) -> str:
    """A value as the block shows it: compact JSON, cut; code points for short non-ASCII strings."""
    if shown is MISSING:
        return say("block.missing")
    if isinstance(shown, str):
        quoted = _cut(_json(shown))
        points = _code_points(shown, notable_only=True)
        return say("block.value_points", value=quoted, points=points) if points and len(shown) <= 12 else quoted
    return _cut(_json(shown))


def _count(shown: Any) -> str:
    return str(len(shown)) if isinstance(shown, list | dict) else _json(shown)[:20]


def rooted(path: str, at: str) -> str:
    """A difference's path (``$[0].contentChars``, from the compared value) from the result's root, where the
    compared value sits at ``at`` (``$.items[0].contentChars``): the one path style of the runner and the export."""
    return path if at == "$" else placed([f"{path}:"], at)[0][:-1]


def _difference_line(difference: Difference, say: Messages, at: str = "$") -> str:
    if difference.shape and isinstance(difference.expected, list):
        return say(
            "block.difference_shape",
            path=rooted(difference.path, at),
            expected=_count(difference.expected),
            got=_count(difference.actual),
            value=value(difference.actual, say),
        )
    expected = value(difference.expected, say)
    if difference.actual is MISSING:
        return say("block.difference_missing", path=rooted(difference.path, at), expected=expected)
    got = value(difference.actual, say)
    if comparable(difference.expected, difference.actual):  # cut around the first difference; short: shown whole
        cut_expected, cut_got, offset = cut_pair(_json(difference.expected), _json(difference.actual), VALUE_LIMIT)
        if offset is not None:
            path = _path(difference.expected, difference.actual, difference.path) or difference.path
            return say(
                "block.difference_at", path=rooted(path, at), expected=cut_expected, got=cut_got, at=f"{offset:,}"
            )
    return say("block.difference", path=rooted(difference.path, at), expected=expected, got=got)


def _pair(expected: Any, actual: Any, limit: int, language: str = DEFAULT_LANGUAGE) -> tuple[str, str, int | None]:
    """Both values as JSON, cut around their first difference when they are of one kind, else each cut alone; an
    expected value that is a description (``describes``) and a value of phrases (``spoken``) are shown as words
    in ``language``, not as JSON."""
    say = messages(language)
    got = _cut(say.words(actual), limit) if spoken(actual) else None
    if isinstance(expected, str) and describes(expected):
        return translated(expected, language, "expected"), got or _cut(_json(actual), limit), None
    if spoken(expected):  # words (the facts a description does not state), never JSON
        return _cut(say.words(expected), 4 * limit), got or _cut(_json(actual), limit), None
    if got is not None:  # words (what a watcher saw), never JSON
        return _cut(_json(expected), limit), got, None
    if comparable(expected, actual):
        return cut_pair(_json(expected), _json(actual), limit)
    return _cut(_json(expected), limit), _cut(_json(actual), limit), None


def _path(expected: Any, actual: Any, at: str = "$") -> str | None:
    """The path of the first differing member of two JSON objects or lists, else None."""
    if isinstance(expected, dict | list) and isinstance(actual, dict | list):
        return first_path(expected, actual, at)
    return None


def _where(at: int, expected: Any, actual: Any, say: Messages) -> str:
    path = _path(expected, actual)
    return say("block.where", at=f"{at:,}") if path is None else say("block.where_path", at=f"{at:,}", path=path)


def _content(content: Any, say: Messages) -> str:
    if not isinstance(content, str):
        return _cut(_json(content), MESSAGE_LIMIT)
    shown = _json(content[:MESSAGE_LIMIT])
    if len(content) > MESSAGE_LIMIT:
        shown += f"…(+{len(content) - MESSAGE_LIMIT})"
    units = len(content.encode("utf-16-le", "surrogatepass")) // 2
    if content.isascii():
        return shown
    note = say("block.length_note", points=len(content))
    if units != len(content):
        note = say("block.length_note_utf16", points=len(content), units=units)
    points = _code_points(content[:MESSAGE_LIMIT], notable_only=True)  # of the text shown, never past the preview
    if not points:
        return say("block.content_length", content=shown, note=note)
    return say("block.content_note", content=shown, points=points, note=note)


def _message_line(index: int, message: Any, say: Messages) -> str:
    if not isinstance(message, dict):
        shown = _cut(_json(message), MESSAGE_LIMIT)
        return say("block.message_line", index=index, role=say("block.not_an_object"), content=shown)
    content = _content(message.get("content"), say)
    return say("block.message_line", index=index, role=message.get("role", "?"), content=content)


def _stored_lines(conversation: StoredConversation, say: Messages) -> list[str]:
    alias = conversation.alias or "-"
    if conversation.messages is None:
        note = translated(conversation.note or "", say.language)
        return [say("block.stored_note", alias=alias, id=conversation.conversation_id, note=note)]
    stored = conversation.messages
    head = say("block.stored_head", alias=alias, id=conversation.conversation_id, count=len(stored))
    indexed = list(enumerate(stored))
    skipped = len(indexed) - MESSAGES_SHOWN
    kept = indexed if skipped <= 0 else indexed[:2] + indexed[-(MESSAGES_SHOWN - 2) :]
    lines = [f"  {_message_line(i, m, say)}" for i, m in kept]
    if skipped > 0:  # the first two and the last ones, the skipped counted between them
        lines.insert(2, f"  {say('block.stored_skipped', count=skipped)}")
    return [head, *lines]


def _sent(detail: FailureDetail, say: Messages) -> str:
    if detail.method is None and detail.arguments is None:
        return say("block.no_call")
    if detail.method is None:
        return say("block.raw_sent", text=_cut(str(detail.arguments)))
    arguments = say("block.no_arguments") if detail.arguments is MISSING else _cut(_json(detail.arguments), 200)
    return f"{detail.method} {arguments}"


def _stored_texts(detail: FailureDetail) -> tuple[str, ...]:
    return tuple(
        m["content"]
        for c in detail.conversations
        for m in c.messages or []
        if isinstance(m, dict) and isinstance(m.get("content"), str)
    )


def scenario_block(scenario: ScenarioResult, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The block of one failed scenario in ``language`` (empty when the scenario has no recorded detail)."""
    detail = scenario.detail
    if detail is None:
        return []
    say = messages(language)
    width = max(display_width(say(f"block.label.{label}")) for label in _LABELS)

    def row(label: str, lines: list[str]) -> list[str]:
        name = ljust(say(f"block.label.{label}"), width)
        return [f"    {name}  {lines[0]}", *(f"    {' ' * width}  {line}" for line in lines[1:])]

    statements = {r.id: r for r in ccweb_spec.requirements()}
    out = [f"{_HEADS.get(scenario.status, scenario.status)} {scenario.nodeid}"]
    out += row(
        "requirement",
        [
            say("block.requirement_line", id=r, level=statements[r].level, statement=say.statement(statements[r]))
            for r in scenario.failed_requirements() or scenario.requirements
        ],
    )
    out += row("check", [translated(detail.check, language)])
    found = differences(detail.expected, detail.actual) if detail.compared else []
    if found:
        lines = [_difference_line(d, say, detail.at) for d in found[:DIFFERENCE_LIMIT]]
        if len(found) > DIFFERENCE_LIMIT:
            lines.append(say("block.more_differences", count=len(found) - DIFFERENCE_LIMIT))
        out += row("differences", lines)
    elif detail.expected is not None or detail.actual is not None:
        shown_expected, shown_actual, at = _pair(detail.expected, detail.actual, PAIR_LIMIT, language)
        out += row("expected", [shown_expected])
        out += row("got", [shown_actual])
        if at is not None:
            out += row("where", [_where(at, detail.expected, detail.actual, say)])
    out += row("sent", [_sent(detail, say)])
    bound = say("block.source_bound", binding=detail.binding or "source", source=detail.source)
    out += row("source", [bound if detail.source is not None else say("block.source_none")])
    stored = [line for c in detail.conversations for line in _stored_lines(c, say)]
    if stored:
        out += row("stored", stored)
    hint = scenario_hint(scenario, language)
    if hint is not None:
        out += row("hint", [hint])
    if scenario.reproducer is not None:
        out += row("rerun", [scenario.reproducer])
    if scenario.rerun is not None:
        out += row("alone", [rerun_line(scenario.rerun, language)])
    return out


def scenario_hint(scenario: ScenarioResult, language: str = DEFAULT_LANGUAGE) -> str | None:
    """The hint for a failed scenario when its failure matches a well-known mistake (hints.yaml), else None."""
    detail = scenario.detail
    if detail is None:
        return None
    found = differences(detail.expected, detail.actual) if detail.compared else []
    facts = FailureFacts(
        scenario.requirements,
        detail.check,
        scenario.message or "",
        tuple(found),
        _stored_texts(detail),
        scenario.scenario,
    )
    hint = hint_for(facts)
    return None if hint is None else hint.in_language(language)


def headline(scenario: ScenarioResult, language: str = DEFAULT_LANGUAGE) -> str:
    """One line a CI annotation can show: requirement, check and first difference (or expected and got)."""
    say = messages(language)
    detail = scenario.detail
    requirements = ", ".join(scenario.failed_requirements() or scenario.requirements)
    if detail is None:
        return f"{requirements}: {(scenario.message or '').strip().splitlines()[0] if scenario.message else ''}"
    check = translated(detail.check, language)
    if check.startswith((f"{requirements}: ", f"{requirements}\uff1a")):  # the check names its requirement already
        check = check[len(requirements) + 1 :].lstrip()
    found = differences(detail.expected, detail.actual) if detail.compared else []
    if found:
        first = _difference_line(found[0], say, detail.at)
        more = f" (+{len(found) - 1})" if len(found) > 1 else ""
    elif detail.expected is not None or detail.actual is not None:
        shown_expected, shown_actual, _ = _pair(detail.expected, detail.actual, VALUE_LIMIT, language)
        path = _path(detail.expected, detail.actual) or "$"
        first = say("block.difference", path=path, expected=shown_expected, got=shown_actual)
        more = ""
    else:
        return f"{requirements}: {check}"
    return f"{requirements}: {check}: {first}{more}"


def reports_line(paths: list[Path | str], language: str = DEFAULT_LANGUAGE) -> str:
    """The closing line: where the full reports are, or how to get them."""
    say = messages(language)
    written = [str(p) for p in paths if str(p) != "-"]
    return say("block.reports_written", paths=", ".join(written)) if written else say("block.reports_suggested")
