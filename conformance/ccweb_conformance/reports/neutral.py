"""Server text made safe where it is rendered: one helper per kind of output, lossless where the format allows.

A server under test controls much of what a report shows (its replies, its stderr, the contents of its
errors). Shown verbatim, that text could drive the terminal or the CI system reading a log:

- control characters: ANSI CSI and OSC sequences, a carriage return that overwrites a line, bidi
  overrides that reorder what is read;
- what a CI runner reads as a command: GitHub's runner acts on ``::`` at the start of a line after any
  white space (Unicode's included) and on ``##[`` anywhere in a line; Azure Pipelines' agent on ``##vso[``
  anywhere.

Plain text (the console, the Markdown report's code, the JUnit text the XML cannot carry) gets
:func:`neutralise`: a control character is written as a visible escape (``\\x1b``, ``\\u202e``), and the
first character of a command as one too (``\\x3a:error``, ``\\x23#[group]``): it reads the same but is no
longer a command. Each text's start counts as a line's start, wherever it is placed. :func:`neutral` does so
to every string of a value (the run model the console and the Markdown read). The JSON and XML writers keep
the server's text whole and use their format's own escapes instead: :func:`json_escapes`, :func:`xml_escapes`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["json_escapes", "map_strings", "neutral", "neutralise", "xml_escapes"]

_T = TypeVar("_T")
_RAW_IN_TEXT = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufff9-\ufffb"
"""DEL, C1, line/paragraph separators and bidi controls: JSON and XML may hold them raw in text."""
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f{_RAW_IN_TEXT}]")
"""Those and C0 but tab and line feed."""
_COMMAND = r"(?m:^)[^\S\n]*:(?=:)|#(?=#\[|#vso\[)"
"""Ending with the first character of a command: ``::`` after white space at a line's start; ``##[`` and ``##vso[``
anywhere."""
_SHOWN = re.compile(rf"{_COMMAND}|\A#(?=\[|vso\[)")
"""Also ``#[`` / ``#vso[`` at a text's start: a ``#`` placed before it would complete a command."""
_JSON_UNSAFE = re.compile(f"#(?=#\\[|#vso\\[)|[{_RAW_IN_TEXT}]")
_XML_UNSAFE = re.compile(f"{_COMMAND}|[{_RAW_IN_TEXT}]")


def _last_escaped(escape: Callable[[int], str]) -> Callable[[re.Match[str]], str]:
    """A replacement that keeps what a match holds but its last character, written with ``escape``."""
    return lambda match: match[0][:-1] + escape(ord(match[0][-1]))


def _visible(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def neutralise(text: str) -> str:
    """``text`` with control characters and the commands a CI runner acts on written as visible escapes."""
    if _CONTROL.search(text) is not None:
        text = _CONTROL.sub(_last_escaped(_visible), text)
    return _SHOWN.sub(_last_escaped(_visible), text) if ("::" in text or "#" in text) else text


def json_escapes(text: str) -> str:
    """JSON text (as ``json.dumps`` writes it, ``ensure_ascii=False``) with the ``#`` of ``##[`` / ``##vso[`` and the
    controls it leaves raw written as ``\\uXXXX``: outside its strings JSON text holds none of them, so this is
    the strings' own escape and a parser reads the server's text back unchanged."""
    return _JSON_UNSAFE.sub(_last_escaped(lambda code: f"\\u{code:04x}"), text)


def xml_escapes(text: str) -> str:
    """Serialised XML with a command's first character and the controls XML may hold raw written as character
    references (``&#35;#[``, ``&#58;:``): only text and attribute values can hold them (a line feed in an
    attribute is already ``&#10;``), so a parser reads the same text back."""
    return _XML_UNSAFE.sub(_last_escaped(lambda code: f"&#{code};"), text)


def neutral(value: _T) -> _T:
    """A copy of ``value`` with every string in it neutralised (dataclasses, lists, tuples, sets, dict keys
    and values); what needs no change is returned as it is, not copied."""
    return map_strings(value, neutralise)


_SCALARS = frozenset({int, float, bool, type(None)})
"""Types that hold no text: returned at once (most of a run's values are numbers, flags and nulls)."""


def map_strings(value: _T, change: Callable[[str], str]) -> _T:
    """A copy of ``value`` with ``change`` applied to every string in it; what does not change is not copied.

    ``change`` depends on its text alone, so it is called once per distinct string of ``value`` (a run's model
    repeats most of its strings: member names, statuses, the same replies).
    """
    done: dict[str, str] = {}
    init_fields: dict[type, tuple[str, ...]] = {}

    def mapped(value: Any) -> Any:
        kind = type(value)
        if kind is str:
            found = done.get(value)
            if found is None:
                found = done[value] = change(value)
            return found
        if kind in _SCALARS:
            return value
        if kind is list or kind is tuple or kind is frozenset:
            return kind([mapped(item) for item in value])
        if isinstance(value, dict):
            return {mapped(key): mapped(item) for key, item in value.items()}
        if isinstance(value, str):
            return change(value)
        return fields_mapped(value)

    def fields_mapped(value: Any) -> Any:
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            return value
        names = init_fields.get(type(value))
        if names is None:
            names = init_fields[type(value)] = tuple(item.name for item in dataclasses.fields(value) if item.init)
        changes = {}
        for name in names:
            old = getattr(value, name)
            new = mapped(old)
            if new is not old and new != old:
                changes[name] = new
        return dataclasses.replace(value, **changes) if changes else value

    return mapped(value)  # type: ignore[no-any-return]
