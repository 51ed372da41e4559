"""Text made safe for Markdown: the one escaper every Markdown the kit writes uses (reports, profile, living spec).

A table cell is one line (every run of white space one space), with ``|`` escaped and, outside
code spans, ``<`` escaped (so a server's text never becomes HTML in a CI summary). Inline
code gets a fence longer than any run of backticks inside it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

__all__ = ["cell", "code", "one_line", "table"]


def one_line(text: str) -> str:
    """The text on one line, every run of white space one space, pipes escaped (safe inside a table)."""
    return " ".join(text.split()).replace("|", "\\|")


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell: one line, pipes escaped, ``<`` escaped outside code."""
    parts = one_line(text).split("`")
    return "`".join(p if i % 2 else p.replace("<", "\\<") for i, p in enumerate(parts))


def code(text: str) -> str:
    """The text as one inline code span, whatever backticks it holds."""
    text = one_line(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]], *, escape: bool = True) -> list[str]:
    """A Markdown table's lines; ``escape=False`` for cells the caller has already made safe."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) if escape else c for c in row) + " |" for row in rows]
    return lines
