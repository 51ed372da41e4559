"""Two long values shown where they differ: a window around the first difference, never only their first characters.

An expected/got pair cut to its first N characters hides the difference when it lies further in
(a two-era ``tools/list`` listing, a file's state, a long result). :func:`cut_pair` cuts both
texts to a window around the first character where they differ, marks what was dropped on each
side (``[1,180 characters cut] …`` and ``… [402 more characters]``), and :func:`where` says where
the difference is: the character offset and, for JSON values, the path of the first differing
member (``$.tools[0].annotations.readOnlyHint``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["BEFORE_SHARE", "comparable", "cut_pair", "first_difference", "first_path", "where", "windowed"]

BEFORE_SHARE = 4
"""A window keeps a quarter of its characters before the first difference (the context that leads to it)."""


def comparable(expected: Any, actual: Any) -> bool:
    """Whether a pair is two values of one kind (two texts, or two JSON objects or lists), whose texts line up;
    a description against a value (``"identical bytes"`` against the files that moved) is not."""
    if isinstance(expected, str) or isinstance(actual, str):
        return isinstance(expected, str) and isinstance(actual, str)
    return isinstance(expected, dict | list) and isinstance(actual, dict | list)


def first_difference(expected: str, actual: str) -> int | None:
    """The index of the first character where the texts differ (the shorter's length when one starts the other);
    None when they are equal."""
    if expected == actual:
        return None
    pairs = enumerate(zip(expected, actual, strict=False))
    return next((index for index, (left, right) in pairs if left != right), min(len(expected), len(actual)))


def windowed(text: str, at: int, limit: int, *, span: int | None = None) -> str:
    """``text`` cut to ``limit`` characters around index ``at``, each cut side marked; whole when it fits.

    ``span``: the length the window's start is fitted to (the longer of a pair, so both windows of a pair
    start at the same character); ``text``'s own length by default.
    """
    if len(text) <= limit:
        return text
    start = max(0, min(at - limit // BEFORE_SHARE, (len(text) if span is None else span) - limit))
    end = min(start + limit, len(text))
    head = f"[{start:,} characters cut] …" if start else ""
    tail = f"… [{len(text) - end:,} more characters]" if end < len(text) else ""
    return f"{head}{text[start:end]}{tail}"


def cut_pair(expected: str, actual: str, limit: int) -> tuple[str, str, int | None]:
    """Both texts cut to ``limit`` characters around their first difference, and its index; the index is None
    when nothing was cut (both fit) or they are equal (then each is cut from its start)."""
    at = first_difference(expected, actual)
    if len(expected) <= limit and len(actual) <= limit:
        return expected, actual, None
    if at is None:
        return windowed(expected, 0, limit), windowed(actual, 0, limit), None
    span = max(len(expected), len(actual))
    return windowed(expected, at, limit, span=span), windowed(actual, at, limit, span=span), at


def first_path(expected: Any, actual: Any, path: str = "$") -> str | None:
    """The path of the first member where two JSON values differ (members in the expected order, then the extra
    ones; a list by index, then its length); None when they are equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            if key not in expected or key not in actual:
                return f"{path}.{key}"
            found = first_path(expected[key], actual[key], f"{path}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (left, right) in enumerate(zip(expected, actual, strict=False)):
            found = first_path(left, right, f"{path}[{index}]")
            if found is not None:
                return found
        return None if len(expected) == len(actual) else f"{path}[{min(len(expected), len(actual))}]"
    same = type(expected) is type(actual) and expected == actual
    return None if same else path


def where(at: int | None, expected: Any = None, actual: Any = None) -> str | None:
    """``first difference at character 1,230 ($.tools[0].description)``: the path when both values are JSON
    objects or lists; None when nothing was cut."""
    if at is None:
        return None
    containers = (dict, list)
    path = first_path(expected, actual) if isinstance(expected, containers) and isinstance(actual, containers) else None
    return f"first difference at character {at:,}" + (f" ({path})" if path else "")
