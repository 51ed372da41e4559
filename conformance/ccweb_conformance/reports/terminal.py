"""Whether to colour the console: a terminal, unless ``NO_COLOR``; always with ``FORCE_COLOR``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

__all__ = ["colour_wanted"]


def colour_wanted(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """``NO_COLOR`` (non-empty) wins, then ``FORCE_COLOR`` (non-empty, not ``0``), then ``isatty``."""
    if environ.get("NO_COLOR"):
        return False
    force = environ.get("FORCE_COLOR")
    if force is not None and force not in ("", "0", "false"):
        return True
    return stream.isatty()
