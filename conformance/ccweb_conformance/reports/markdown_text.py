"""Text made safe for Markdown: the one escaper every Markdown the kit writes uses (reports, profile, living spec).

A table cell is one line (every run of white space one space), with ``|`` escaped and, outside
code spans, ``<`` escaped (so a server's text never becomes HTML in a CI summary). Inline
code gets a fence longer than any run of backticks inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["cell", "code", "fenced", "longest_backtick_run", "one_line", "table"]


def one_line(text: str) -> str:
    """The text on one line, every run of white space one space, pipes escaped (safe inside a table)."""
    return " ".join(text.split()).replace("|", "\\|")


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell: one line, pipes escaped, ``<`` escaped outside code."""
    parts = one_line(text).split("`")
    return "`".join(p if i % 2 else p.replace("<", "\\<") for i, p in enumerate(parts))


def code(text: str, *, one_line_first: bool = True) -> str:
    """The text as one inline code span, whatever backticks it holds (``one_line_first``: as :func:`one_line`)."""
    text = one_line(text) if one_line_first else text
    fence = "`" * (longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def fenced(text: str) -> list[str]:
    """The text as a fenced ``text`` block, its fence longer than any run of backticks in it."""
    fence = "`" * max(3, longest_backtick_run(text) + 1)
    return [f"{fence}text", text, fence]


def longest_backtick_run(text: str) -> int:
    """The length of the longest run of backticks in ``text`` (0 when none)."""
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, escape: bool = True) -> list[str]:
    """A Markdown table's lines; ``escape=False`` for cells the caller has already made safe."""
    body = ["| " + " | ".join(cell(c) if escape else c for c in row) + " |" for row in rows]
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *body]
