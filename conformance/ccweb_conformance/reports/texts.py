"""The console's wording, read from ``console_texts.yaml`` beside this module."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

__all__ = ["text"]


@cache
def _texts() -> dict[str, str]:
    loaded: dict[str, str] = yaml.safe_load((Path(__file__).parent / "console_texts.yaml").read_text("utf-8"))
    return loaded


def text(key: str, **values: Any) -> str:
    """The text for ``key`` with its placeholders filled."""
    return _texts()[key].format(**values)
