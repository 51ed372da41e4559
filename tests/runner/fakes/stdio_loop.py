"""What the fake servers of these tests share: the stdio request loop, and the plain answers (the HTTP
fakes use those too).

Each fake runs as a script (``python tests/runner/fakes/NAME.py``), so this module is found
beside it; it imports nothing but the standard library, so a fake still starts in milliseconds.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any


def requests(lines: Iterable[str] = sys.stdin) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """Each JSON-RPC request read, as (message, method, id); blank lines and notifications skipped."""
    for line in lines:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" in message:
            yield message, message.get("method"), message["id"]


def initialized(
    message: dict[str, Any], name: str, *, version: str | None = None, answer_id: Any = None
) -> dict[str, Any]:
    """The response to ``initialize``: the offered revision (or ``version``), tools, and ``name``."""
    result = {
        "protocolVersion": version or message["params"]["protocolVersion"],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": name, "version": "0"},
    }
    return {"jsonrpc": "2.0", "id": message["id"] if answer_id is None else answer_id, "result": result}


def not_found(request_id: Any) -> dict[str, Any]:
    """The response to a method the fake does not know."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
