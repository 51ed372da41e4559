"""A fast hand-written MCP stdio server for timing whole runs (issue 20 item 7).

    ccweb-conformance run --stdio ".venv/bin/python bench/fast_server.py"

It speaks the ``initialize`` era only (2025-06-18 and 2025-11-25, as the Node example and
most servers today; ``server/discover`` is an unknown method, so the runner falls back), one
JSON-RPC message per line, and builds its answers on the reference's transport-free
``call_tool`` (the same store, D-14 re-read window and cache), without the MCP SDK: it starts
with about 0.15 s of CPU where the reference takes about 1 s. Requests are answered in order on one
thread, which is all the contract asks of a stdio server. It is a benchmark target, not a
second reference: the suite and the mutant batch judge the reference.

``--window S`` sets the re-read window of unparsable files (D-14; default 0.2 s, the
reference's). ``--window 0`` reads once and answers at once: the run then warns on the D-14
SHOULD scenarios, and shows what a run costs without the 22 unreadable files' 200 ms waits.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_reference import store
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool
from ccweb_reference.wire import dumps

VERSIONS = ("2025-11-25", "2025-06-18")
"""The revisions spoken, newest first."""
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _result(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _echoable(request_id: Any) -> Any:
    """The id to echo in an error: a string or a number, else null."""
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


class Server:
    """The answers of one process: one store, one source conversation."""

    def __init__(self) -> None:
        self.store = SessionStore(Path(os.environ["CC_WEB_SESSIONS_DIR"]))
        self.source = os.environ.get("CCWEB_SESSION_ID")
        self.tool: dict[str, Any] = ccweb_spec.tool_definition()
        self.methods: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "initialize": self.initialize,
            "ping": lambda _params: {},
            "tools/list": lambda _params: {"tools": [self.tool]},
        }

    def answer(self, message: Any) -> dict[str, Any] | None:
        """The response to one decoded message, or None for a notification."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(
                _echoable(message.get("id") if isinstance(message, dict) else None), INVALID_REQUEST, "Invalid request"
            )
        if "id" not in message:
            return None
        method, request_id = message.get("method"), message["id"]
        if not isinstance(method, str) or _echoable(request_id) is None:
            return _error(_echoable(request_id), INVALID_REQUEST, "Invalid request")
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if method == "tools/call":
            return self.call(request_id, params)
        handler = self.methods.get(method)
        if handler is None:
            return _error(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        return _result(request_id, handler(params))

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        """The offered revision when spoken, else the newest."""
        offered = params.get("protocolVersion")
        version = offered if offered in VERSIONS else VERSIONS[0]
        info = {"name": "ccweb-fast-bench", "version": "0"}
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}

    def call(self, request_id: str | int, params: dict[str, Any]) -> dict[str, Any]:
        """A tools/call: the reference's result object, as structuredContent and as one JSON text block."""
        if params.get("name") != self.tool["name"]:
            return _error(request_id, INVALID_PARAMS, f"Unknown tool: {params.get('name')!r}")
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, dict):
            return _error(request_id, INVALID_PARAMS, "arguments must be an object")
        result, is_error = call_tool(self.store, arguments, self.source)
        text = [{"type": "text", "text": dumps(result)}]
        return _result(request_id, {"content": text, "structuredContent": result, "isError": is_error})


def main() -> int:
    """Serve stdin until it ends."""
    if sys.argv[1:2] == ["--window"]:
        store.TORN_WINDOW_S = float(sys.argv[2])
    server = Server()
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            response: dict[str, Any] | None = _error(None, PARSE_ERROR, "Parse error")
        else:
            response = server.answer(message)
        if response is not None:
            out.write(dumps(response).encode() + b"\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
