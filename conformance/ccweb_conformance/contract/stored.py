"""What a scenario stored, read back for the failure block (the files are still there)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["read_stored"]

RAW_LIMIT = 120
"""Characters of a file shown when it is not a session."""


def read_stored(path: Path) -> tuple[list[Any] | None, str | None]:
    """The ``messages`` of a session file, or None and a note saying what the entry is."""
    if path.is_symlink():
        return None, f"a symbolic link to {Path(path).readlink()}"
    if path.is_dir():
        return None, "a directory"
    try:
        data = path.read_bytes()
    except OSError as error:
        return None, f"unreadable ({error.strerror})"
    try:
        document = json.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, f"the bytes {data[:RAW_LIMIT]!r}"
    if isinstance(document, Mapping) and isinstance(document.get("messages"), list):
        return list(document["messages"]), None
    return None, f"the JSON {json.dumps(document, ensure_ascii=False)[:RAW_LIMIT]}"
