"""A tiny legacy-only Streamable HTTP MCP server that misbehaves on tools/call as argv[1] names.

Usage: fake_http.py MODE PORT. Modes: ok, 500, ctype, sse, exit.
server/discover gets HTTP 400 (so ``auto`` falls back); a DELETE of the session leaves a
file ``deleted-<session>`` in $CC_WEB_SESSIONS_DIR.
"""

import json
import os
import sys
from http.server import HTTPServer
from pathlib import Path

from fake_replies import ReplyingHandler
from stdio_loop import initialized

MODE = sys.argv[1]
SESSION = "fake-session-1"


class Handler(ReplyingHandler):
    def do_DELETE(self) -> None:
        session = self.headers.get("Mcp-Session-Id", "none")
        Path(os.environ["CC_WEB_SESSIONS_DIR"], f"deleted-{session}").write_text("")
        self.reply(200, None, b"")

    def do_POST(self) -> None:
        if (posted := self.posted()) is None:
            return
        body, method, request_id = posted
        if method == "server/discover":
            self.json_reply({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no session"}}, 400)
        elif method == "initialize":
            self.json_reply(initialized(body, "fake-http", version="2025-11-25"), headers={"Mcp-Session-Id": SESSION})
        elif self.wrong_session(SESSION):
            pass
        elif method == "tools/list":
            self.json_reply({"jsonrpc": "2.0", "id": request_id, "result": {"tools": []}})
        else:
            self.call_tool(request_id)

    def call_tool(self, request_id: object) -> None:
        echo = {"source": self.headers.get("X-CCWeb-Session-Id"), "version": self.headers.get("MCP-Protocol-Version")}
        ok = {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"content": [{"type": "text", "text": json.dumps(echo, sort_keys=True)}]},
        }
        if self.fault_reply(MODE):
            return
        if MODE == "sse":
            self.sse_reply(ok, (7, 8), event_on_response=False)
        else:
            self.json_reply(ok)


def main() -> None:
    if MODE == "exit":
        sys.stderr.write("fatal: port already taken\n")
        sys.exit(4)
    HTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()


if __name__ == "__main__":
    main()
