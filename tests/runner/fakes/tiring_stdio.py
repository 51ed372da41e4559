"""A stdio server that breaks only after it has served other calls: a failure that depends on what ran before.

``python tiring_stdio.py N``: the process answers its first N ``tools/call`` requests as the reference does, and
every later one with ``totalChars`` one too many. A scenario that a fresh process runs alone, with N calls or
fewer, passes; the same scenario late in a run, on a process that served other scenarios, fails. The server is
``bench/fast_server.py`` (the reference's ``call_tool`` without the MCP SDK).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

FAST_SERVER = Path(__file__).resolve().parents[3] / "bench" / "fast_server.py"


def serve(fresh_calls: int) -> int:
    """Load ``bench/fast_server.py`` and serve stdin with it, tired after ``fresh_calls`` tool calls."""
    spec = importlib.util.spec_from_file_location("fast_server", FAST_SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    served = 0
    call = module.Server.call

    def tired(self: Any, request_id: str | int, params: dict[str, Any]) -> dict[str, Any]:
        nonlocal served
        served += 1
        response: dict[str, Any] = call(self, request_id, params)
        result = response.get("result", {})
        if served > fresh_calls and isinstance(result.get("structuredContent", {}).get("totalChars"), int):
            result["structuredContent"]["totalChars"] += 1
            result["content"] = [{"type": "text", "text": module.dumps(result["structuredContent"])}]
        return response

    module.Server.call = tired
    code: int = module.main()
    return code


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1])))
