"""The console's terminal: whether to colour it (unless ``NO_COLOR``; always with ``FORCE_COLOR``), its width."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

from ccweb_conformance.textwidth import wrap_text

__all__ = ["MIN_WRAP_WIDTH", "colour_wanted", "fit_to_terminal", "tell", "terminal_width"]

MIN_WRAP_WIDTH = 40
"""Narrower terminals are left to cut lines themselves (a wrapped line would hardly fit either)."""


def colour_wanted(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """``NO_COLOR`` (non-empty) wins, then ``FORCE_COLOR`` (non-empty, not ``0``), then ``isatty``."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR", "") not in ("", "0", "false"):
        return True
    return stream.isatty()


def terminal_width(stream: TextIO) -> int | None:
    """Columns of the terminal ``stream`` writes to; None when it is no terminal (a log is never wrapped)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else None
    except (OSError, ValueError, AttributeError):  # a stream without a descriptor (captured), or closed
        return None


def fit_to_terminal(text: str, stream: TextIO) -> str:
    """``text`` with its lines wrapped at spaces to the terminal's width (unchanged outside a terminal)."""
    width = terminal_width(stream)
    return text if width is None or width < MIN_WRAP_WIDTH else wrap_text(text, width)


def tell(line: str) -> None:
    """A line of the runner's own (an error, a warning) on stderr, wrapped at words like the summary."""
    print(fit_to_terminal(line, sys.stderr), file=sys.stderr, flush=True)
