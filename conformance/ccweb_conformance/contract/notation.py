"""The small notation the features use inside step text, tables and doc strings.

- ``\\u{1F600}`` in a table cell or quoted step value stands for that code point, so that
  invisible characters (U+3000, U+FEFF, ...) stay readable in the feature files.
- ``{alpha}`` in arguments, raw values and doc strings stands for the real, unique ID the
  runner gave the conversation called ``alpha`` in this scenario.
- ``null`` in an item-table column that may be null stands for JSON null.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping

_CODE_POINT = re.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")
ALIAS = re.compile(r"\{([A-Za-z][A-Za-z0-9]*)\}")


def code_points(text: str) -> str:
    """Replace every ``\\u{XXXX}`` with its code point."""
    return _CODE_POINT.sub(lambda m: chr(int(m.group(1), 16)), text)


def aliases(text: str, ids: Mapping[str, str]) -> str:
    """Replace every ``{alias}`` of a known conversation with its real ID."""

    def real_id(match: re.Match[str]) -> str:
        alias = match.group(1)
        if alias not in ids:
            known = ", ".join(sorted(ids)) or "none"
            raise KeyError(f"unknown conversation {alias!r} in {text!r} (known: {known})")
        return ids[alias]

    return ALIAS.sub(real_id, text)


def byte_string(text: str) -> bytes:
    """Bytes written as text with Python escapes: ``\\xff``, ``\\"``, ``\\\\``."""
    decoded: bytes = codecs.escape_decode(text.encode("utf-8"))[0]
    return decoded


_NUMBERED = re.compile(r"(?P<prefix>.*?)(?P<number>\d+)")


def numbered(first: str, last: str) -> list[str]:
    """``"input 6", "input 8"`` -> ``["input 6", "input 7", "input 8"]``."""
    start, end = _NUMBERED.fullmatch(first), _NUMBERED.fullmatch(last)
    if start is None or end is None or start["prefix"] != end["prefix"]:
        raise ValueError(f"{first!r} and {last!r} must be the same text ending in a number")
    return [f"{start['prefix']}{n}" for n in range(int(start["number"]), int(end["number"]) + 1)]
