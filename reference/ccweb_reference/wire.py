"""JSON text that survives lone surrogates (D-3).

``json.dumps(..., ensure_ascii=False)`` keeps a lone surrogate as a raw code point, which
cannot be encoded as UTF-8; pydantic's JSON writer raises on it. Here every lone
surrogate is written as a ``\\uXXXX`` escape, everything else stays as it is.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(value: Any) -> str:
    """Compact JSON text, UTF-8 encodable whatever strings ``value`` holds."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return _SURROGATE.sub(_escape, text)
