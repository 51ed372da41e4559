"""Display width of text in a terminal, and padding by it.

A CJK character takes two columns, so ``str.ljust`` (which counts code points) misaligns
columns as soon as Chinese text is in them. Here East Asian Wide and Fullwidth characters
count 2, combining marks and zero-width characters 0, everything else 1.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["char_width", "display_width", "ljust", "rjust", "wrap_line", "wrap_text"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""A colour code: it takes no column."""
_COMMAND = "ccweb-conformance "
"""Where a command starts in a line (a rerun or replay line): it is wrapped with `` \\`` continuations."""
_SHELL_WORD = re.compile(r"""(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+""")
_VALUE_COLUMN = re.compile(r"^( *\S+(?: \S+)?  +)(?=\S)")
"""A labelled line (``    hint      text``): its value starts after the label's padding."""

_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
"""Format characters that take no column: zero-width space, (non-)joiners, word joiner, BOM."""


def char_width(char: str) -> int:
    """Columns one character takes: 0, 1 or 2."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me") or char in _ZERO_WIDTH:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """Columns a one-line text takes in a terminal (colour codes take none)."""
    return sum(char_width(c) for c in _ANSI.sub("", text))


def ljust(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` columns (unchanged when already wider)."""
    return text + " " * (width - display_width(text))


def rjust(text: str, width: int) -> str:
    """Spaces, then ``text``, up to ``width`` columns (unchanged when already wider)."""
    return " " * (width - display_width(text)) + text


_NO_LINE_START = frozenset("，。、；：！？）」』】》〉…,.;:!?)]}")  # noqa: RUF001 (full-width punctuation is meant)
"""Punctuation that never starts a line: it stays with what comes before it."""


def _breakable(char: str) -> bool:
    """A line may break before and after ``char``: a wide character of CJK text (an emoji is a word of its own)."""
    return char_width(char) == 2 and unicodedata.category(char) not in ("So", "Sk")


def _cjk_pieces(word: str) -> list[str]:
    """``word`` split where a line may break: around each CJK character, never before closing punctuation
    nor a character that takes no column (a joiner, a combining mark)."""
    pieces: list[str] = []
    for char in word:
        if pieces and (
            char in _NO_LINE_START or char_width(char) == 0 or not (_breakable(char) or _breakable(pieces[-1][-1]))
        ):
            pieces[-1] += char
        else:
            pieces.append(char)
    return pieces


def _pieces(line: str) -> tuple[list[str], int]:
    """The words of ``line`` (spaces kept in front of each) and where its command starts (a word index)."""
    plain = _ANSI.sub("", line)
    start = line.find(_COMMAND) if _COMMAND in plain else -1
    prose = line if start < 0 else line[:start]
    words: list[str] = []
    for match in re.finditer(r"( *)(\S+)", prose):
        spaces, word = match.groups()
        parts = _cjk_pieces(word) if _ANSI.search(word) is None else [word]
        words += [spaces + parts[0], *parts[1:]]
    if start < 0:
        return words, len(words)
    trailing = prose[len(prose.rstrip(" ")) :]
    command = [m.group(0) for m in re.finditer(r" *" + _SHELL_WORD.pattern, line[start:])]
    return [*words, trailing + command[0], *command[1:]], len(words)


def wrap_line(line: str, width: int) -> list[str]:
    """``line`` cut at spaces into lines of at most ``width`` columns, never inside a word.

    Continuation lines start at the line's value column (after a label's padding), else two columns in.
    In a command (from ``ccweb-conformance ``) cuts fall between shell words only, and each cut line
    ends with `` \\``, so the lines pasted into a shell are still the one command.

    A word wider than a line (a long path, a quoted server command) is never cut: as pytest prints it,
    it stays whole on a line of its own and the terminal soft-wraps it, so a copy of the screen still
    holds it in one piece. "Its own line" is the value column: the first value word of a labelled line
    stays beside its label (a label alone on a line says nothing), and the word after it starts a new line.
    """
    if display_width(line) <= width:
        return [line]
    words, command_at = _pieces(line.rstrip(" "))
    column = _VALUE_COLUMN.match(_ANSI.sub("", line))
    indent = " " * (display_width(column.group(1)) if column else len(line) - len(line.lstrip(" ")) + 2)
    if display_width(indent) > width // 2:
        indent = "  "
    lines: list[str] = []
    current = ""
    head = len(column.group(1).rstrip(" ")) if column else 0
    """The label's end in the line: a first value word too wide for any line stays after it."""
    for index, word in enumerate(words):
        mark = " \\" if index > command_at else ""
        too_wide = display_width(indent + word.lstrip(" ") + mark) > width
        beside_label = not lines and head and display_width(current) <= head and index > 0
        if current and display_width(current + word + mark) > width and not (too_wide and beside_label):
            lines.append(current + (mark if index > command_at else ""))
            current = indent + word.lstrip(" ")
        else:
            current += word
    lines.append(current)
    return lines


def wrap_text(text: str, width: int) -> str:
    """Every line of ``text`` wrapped by :func:`wrap_line`."""
    return "\n".join(piece for line in text.split("\n") for piece in wrap_line(line, width))
