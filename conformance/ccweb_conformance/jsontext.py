"""JSON text: written compact (what the runner sends) and indented (fast), and received text read with every
strict-JSON problem named.

``compact`` writes one message as the runner sends it: compact, raw UTF-8, every lone surrogate as a ``\\uXXXX``
escape (so the text stays UTF-8 encodable; the transport needs nothing from the reference's own wire helper).
``indented`` writes JSON text indented by two spaces, byte for byte as ``json.dumps(value,
indent=2)`` writes it, but fast. With ``indent`` set, the standard library encodes in pure Python (its C encoder has no
indentation): a run's session files and its JSON report cost about 1.3 s that way. Here the C
encoder writes compact text and msgspec indents it, which gives the same text (same separators,
same escapes, same number spellings; proved by the tests on every shape). msgspec refuses a
lone surrogate escape, so a value holding one is written by ``json.dumps`` as before.

``read_json`` and ``decode_utf8`` read what a server sent (D-16: RFC 8259 JSON in valid UTF-8):
the standard library's parser with hooks, so NaN/Infinity and duplicate member names are named
instead of silently accepted, and a value nested too deep or an integer too long to convert is one clear error.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import msgspec

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""A lone surrogate in a ``str`` (a paired one is a single astral character there)."""


def escape_lone_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as a ``\\uXXXX`` escape: UTF-8 encodable, the value unchanged."""
    if text.isascii() or LONE_SURROGATE.search(text) is None:
        return text
    return LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys included) replaced by U+FFFD, as a JSON writer that
    cannot carry one does (strict parsers such as jq 1.6 refuse a lone ``\\udXXX`` escape)."""
    if isinstance(value, dict | list | tuple) and not _holds_lone_surrogate(value):
        return value  # the common case, told by one pass of the C encoder instead of a walk in Python
    return _replaced(value)


def _holds_lone_surrogate(value: Any) -> bool:
    """Whether a string of ``value`` may hold a lone surrogate (True when it cannot be written as JSON)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return True
    return LONE_SURROGATE.search(text) is not None


def _replaced(value: Any) -> Any:
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_replaced(k): _replaced(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replaced(v) for v in value]
    return value


NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
"""How a non-finite number is spelt in the non-JSON text a server may send (Python reads it as a float)."""


def finite_only(value: Any, path: str = "$") -> tuple[Any, list[str]]:
    """``value`` with every NaN or infinite number written as its spelling, a string (``"NaN"``, ``"Infinity"``,
    ``"-Infinity"``), and the JSON paths where that was done: RFC 8259 has no such numbers, and a report holding one
    bare is refused by strict parsers (jq, Go, serde_json)."""
    if isinstance(value, dict | list | tuple) and _finite_text(value) is not None:
        return value, []  # the common case, told by one pass of the C encoder instead of a walk in Python
    return _finite_walk(value, path)


def _finite_text(value: Any) -> str | None:
    """``value`` written by the C encoder with ``allow_nan=False``, or None when it cannot be (a NaN or infinite
    number, a value it cannot write, a cycle): None means "cannot tell", and the callers walk the value."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _finite_walk(value: Any, path: str) -> tuple[Any, list[str]]:
    if isinstance(value, float) and not math.isfinite(value):
        return NON_FINITE[repr(value)], [path]
    if isinstance(value, dict):
        members = {key: _finite_walk(item, f"{path}.{key}") for key, item in value.items()}
        found = [where for _, inner in members.values() for where in inner]
        return ({key: item for key, (item, _) in members.items()}, found) if found else (value, [])
    if isinstance(value, list | tuple):
        pairs = [_finite_walk(item, f"{path}[{number}]") for number, item in enumerate(value)]
        found = [where for _, inner in pairs for where in inner]
        return ([item for item, _ in pairs], found) if found else (value, [])
    return value, []


def strict_json(value: Any) -> bool:
    """Whether ``value`` is surely RFC 8259 JSON as it is: no NaN or infinite number, no lone surrogate (then
    :func:`finite_only` and :func:`replace_lone_surrogates` change nothing); False when that cannot be told."""
    text = _finite_text(value)
    return text is not None and LONE_SURROGATE.search(text) is None


def has_lone_surrogate(value: Any) -> bool:
    """Whether ``value`` is a string holding a lone surrogate."""
    return isinstance(value, str) and LONE_SURROGATE.search(value) is not None


def compact(value: Any) -> str:
    """Compact JSON text of ``value``, non-ASCII kept raw, every lone surrogate escaped (UTF-8 encodable)."""
    return escape_lone_surrogates(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def indented(value: Any, *, ensure_ascii: bool, allow_nan: bool = True) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=ensure_ascii, allow_nan=allow_nan)``."""
    one_line = json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=allow_nan)
    try:
        return msgspec.json.format(one_line.encode("utf-8"), indent=2).decode("utf-8")
    except (UnicodeEncodeError, msgspec.DecodeError):  # a lone surrogate, raw or escaped
        return json.dumps(value, indent=2, ensure_ascii=ensure_ascii, allow_nan=allow_nan)


MAX_DEPTH = 200
"""Levels of arrays and objects a received JSON value may nest (RFC 8259 section 9 lets a reader set one)."""


class BeyondLimits(ValueError):
    """Valid JSON text beyond what the runner reads (RFC 8259 section 9 lets a reader set limits): not read at all."""


class TooDeep(BeyondLimits):
    """A JSON value nested deeper than :data:`MAX_DEPTH`."""

    def __init__(self) -> None:
        super().__init__(
            f"JSON nested deeper than {MAX_DEPTH} levels, the most the runner reads (RFC 8259 allows the limit)"
        )


class TooManyDigits(BeyondLimits):
    """An integer with more digits than Python converts (``sys.get_int_max_str_digits``)."""

    def __init__(self, digits: int, limit: int) -> None:
        super().__init__(
            f"a number with {digits:,} digits, more than the {limit:,} the runner reads (RFC 8259 allows the limit)"
        )


@dataclass
class Received:
    """A received JSON text as read, and where it is not strict RFC 8259 JSON."""

    value: Any
    problems: list[str] = field(default_factory=list)
    """NaN/Infinity (read as the strings "NaN", "Infinity", "-Infinity"), duplicate member names (the last one kept)."""


_reading = threading.local()
"""The problems list of the text being read in this thread (the decoder's hooks append to it)."""


def _constant(name: str) -> str:
    _reading.problems.append(f'{name} is not a JSON value (RFC 8259), read as the string "{name}"')
    return name


def _members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    built = dict(pairs)
    if len(built) != len(pairs):
        names = [key for key, _ in pairs]
        twice = sorted({key for key in names if names.count(key) > 1})
        _reading.problems.append(
            f"duplicate member name{'s' if len(twice) > 1 else ''} {', '.join(map(compact, twice))} in one object "
            "(RFC 8259 wants names unique, and readers differ on which value wins: this one keeps the last)"
        )
    return built


_DECODER = json.JSONDecoder(parse_constant=_constant, object_pairs_hook=_members)
"""One decoder, made once: ``json.loads`` with hooks builds a new one per call, which costs more than the read."""


def _integer(text: str) -> int:
    """An integer's text as ``int`` does, but one beyond Python's digit limit raises :class:`TooManyDigits`."""
    limit = sys.get_int_max_str_digits()
    digits = len(text) - text.startswith("-")
    if limit and digits > limit:
        raise TooManyDigits(digits, limit)
    return int(text)


_DIGITS_FINDER = json.JSONDecoder(parse_int=_integer)
"""Reads a text again only when the fast decoder met the digit limit (a hook on every integer costs each read)."""


def read_json(text: str) -> Received:
    """Read one received JSON text leniently, naming every way it breaks strict JSON.

    Raises ``ValueError`` when ``text`` is not JSON at all, :class:`TooDeep` when it nests
    deeper than :data:`MAX_DEPTH` (a value that deep is not kept: checking, copying or reporting
    it would exhaust the stack) and :class:`TooManyDigits` when an integer has more digits than
    Python converts (such a value could not be written back in a report either). Lone-surrogate
    escapes are valid JSON text and stay as they are.
    """
    problems: list[str] = []
    _reading.problems = problems
    try:
        value = _DECODER.decode(text)
    except RecursionError:
        raise TooDeep from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # Python's limit on an integer's digits, met inside the parser
        try:
            _DIGITS_FINDER.decode(text)  # raises TooManyDigits, naming the number
        except RecursionError:
            raise TooDeep from None
        raise
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(value) > MAX_DEPTH:
        raise TooDeep
    return Received(value, problems)


def beyond_limits(text: str) -> str | None:
    """Why ``text``, which a plain ``json.loads`` refused, is beyond what the runner reads; None when it is not JSON."""
    try:
        read_json(text)
    except ValueError as exc:  # not JSON at all, or beyond the limits
        return str(exc) if isinstance(exc, BeyondLimits) else None
    return None


def _depth(value: Any) -> int:
    """How many arrays and objects nest in ``value`` (iterative: the stack is never at risk)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def decode_utf8(raw: bytes, what: str) -> tuple[str, str | None]:
    """``raw`` as UTF-8, and the problem when it is not valid UTF-8 (then decoded with U+FFFD)."""
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        bad = raw[exc.start : exc.end].hex(" ")
        return raw.decode("utf-8", errors="replace"), f"{what} is not valid UTF-8 (bytes {bad} at offset {exc.start})"
