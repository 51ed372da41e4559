"""A minimal legacy-era MCP client over a reference process's stdin/stdout, for the kit's own tests."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import Any

TOOL = "ccweb_list_user_inputs"
TIMEOUT = 30.0


def without_message(result: dict[str, Any], is_error: bool) -> dict[str, Any]:
    """``result`` with an error's free-text message checked (non-empty text) and dropped."""
    assert is_error is (result["ok"] is False)
    if is_error:
        message = result["error"].pop("message")
        assert isinstance(message, str)
        assert message
    return result


class LineClient:
    """Legacy-era JSON-RPC over a server process's stdin/stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process, self.next_id = process, 0
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
        assert self.request("initialize", params)["result"]["protocolVersion"] == "2025-06-18"
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The response to one request (notifications and other ids are skipped)."""
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message: dict[str, Any] = json.loads(self.lines.get(timeout=TIMEOUT))
            if message.get("id") == self.next_id:
                return message

    def call(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """The result object (message dropped from errors); structured and text placements agree."""
        result = self.request("tools/call", {"name": TOOL, "arguments": arguments})["result"]
        [block] = result["content"]
        assert json.loads(block["text"]) == result["structuredContent"]
        return without_message(result["structuredContent"], result.get("isError", False))
