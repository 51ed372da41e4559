"""Server output made safe to show to a person or a CI log: one helper for every writer.

A server under test controls much of what a report shows (its replies, its stderr, the
contents of its errors). Shown verbatim, that text can drive the terminal or the CI system
reading the log:

- control characters: ANSI CSI and OSC sequences (clear the screen, move the cursor, paint a
  fake green ``PASSED``, OSC 8 links), a carriage return that overwrites a line, bidi
  overrides that reorder what is read. Each is written as a visible escape (``\\x1b``,
  ``\\u202e``); line feeds and tabs stay;
- lines a CI system reads as a command: GitHub Actions' ``::error ...``, ``::add-mask::...``,
  ``::stop-commands::...`` (matched after leading whitespace, which the runner trims), and
  Azure Pipelines' ``##[...]`` and ``##vso[...]``. Such a line's first character is written
  as an escape (``\\x3a:error``), so it reads the same but is no longer a command.

:func:`neutralise` does both to one text; :func:`neutral` to every string of a run (the
model every writer reads); :func:`defuse_lines` only the second, for a whole rendered
document that also holds the runner's own colours.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, TypeVar

__all__ = ["defuse_lines", "neutral", "neutralise"]

_T = TypeVar("_T")
_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufff9-\ufffb]"
)
"""C0 (but tab and line feed), DEL, C1, line/paragraph separators and bidi controls."""
_COMMAND_LINE = re.compile(r"^([ \t\f\v]*)(::|##\[|##vso\[)", re.MULTILINE)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _defuse(match: re.Match[str]) -> str:
    lead, command = match.group(1), match.group(2)
    return f"{lead}\\x{ord(command[0]):02x}{command[1:]}"


def defuse_lines(text: str) -> str:
    """``text`` with every line that a CI system would read as a command defused (nothing else changed)."""
    return _COMMAND_LINE.sub(_defuse, text) if ("::" in text or "##" in text) else text


def neutralise(text: str) -> str:
    """``text`` with control characters escaped and CI command lines defused; unchanged when already safe."""
    if _CONTROL.search(text) is not None:
        text = _CONTROL.sub(_escape, text)
    return defuse_lines(text)


def neutral(value: _T) -> _T:
    """A copy of ``value`` with every string in it neutralised (dataclasses, lists, tuples, sets, dict keys
    and values); what needs no change is returned as it is, not copied."""
    return _neutral(value)  # type: ignore[no-any-return]


_SCALARS = frozenset({int, float, bool, type(None)})
"""Types that hold no text: returned at once (most of a run's values are numbers, flags and nulls)."""


def _neutral(value: Any) -> Any:
    if isinstance(value, str):
        return neutralise(value)
    if type(value) in _SCALARS:
        return value
    if type(value) in (list, tuple, frozenset):
        return type(value)(_neutral(item) for item in value)
    if isinstance(value, dict):
        return {_neutral(key): _neutral(item) for key, item in value.items()}
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    changes = {}
    for item in dataclasses.fields(value):
        if item.init:
            old = getattr(value, item.name)
            new = _neutral(old)
            if new is not old and new != old:
                changes[item.name] = new
    return dataclasses.replace(value, **changes) if changes else value
