"""JSON text indented by two spaces, byte for byte as ``json.dumps(value, indent=2)`` writes it, but fast.

With ``indent`` set, the standard library encodes in pure Python (its C encoder has no
indentation): a run's session files and its JSON report cost about 1.3 s that way. Here the C
encoder writes compact text and msgspec indents it, which gives the same text (same separators,
same escapes, same number spellings; proved by the tests on every shape). msgspec refuses a
lone surrogate escape, so a value holding one is written by ``json.dumps`` as before.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


def indented(value: Any, *, ensure_ascii: bool) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=ensure_ascii)``."""
    compact = json.dumps(value, ensure_ascii=ensure_ascii)
    try:
        return msgspec.json.format(compact.encode("utf-8"), indent=2).decode("utf-8")
    except (UnicodeEncodeError, msgspec.DecodeError):  # a lone surrogate, raw or escaped
        return json.dumps(value, indent=2, ensure_ascii=ensure_ascii)
