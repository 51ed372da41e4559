"""Display width of text in a terminal, and padding by it.

A CJK character takes two columns, so ``str.ljust`` (which counts code points) misaligns
columns as soon as Chinese text is in them. Here East Asian Wide and Fullwidth characters
count 2, combining marks and zero-width characters 0, everything else 1.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

__all__ = ["char_width", "display_width", "ljust", "rjust"]

_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
"""Format characters that take no column: zero-width space, (non-)joiners, word joiner, BOM."""


def char_width(char: str) -> int:
    """Columns one character takes: 0, 1 or 2."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me") or char in _ZERO_WIDTH:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns a one-line text takes in a terminal."""
    return sum(char_width(c) for c in text)


def _pad(text: str, width: int, side: Literal["left", "right"]) -> str:
    fill = " " * max(0, width - display_width(text))
    return text + fill if side == "left" else fill + text


def ljust(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` columns (unchanged when already wider)."""
    return _pad(text, width, "left")


def rjust(text: str, width: int) -> str:
    """Spaces, then ``text``, up to ``width`` columns (unchanged when already wider)."""
    return _pad(text, width, "right")
