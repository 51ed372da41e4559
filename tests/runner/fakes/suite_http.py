"""A legacy-era Streamable HTTP MCP server for whole runs of the suite, correct except where its arguments say.

Usage: suite_http.py PORT WORD... It declares the spec's real tool and answers tools/call
with the reference's result object (application/json), except as the words say:

  N=500     the N-th tools/call gets HTTP 500 with a plain-text body
  N=ctype   the N-th tools/call gets HTTP 200 with Content-Type text/html
  sse       every other call: an SSE stream with comments, a notification event, then the
            response split over two data lines (all of which Streamable HTTP allows)
  exit      exit code 4 at start-up, one line on stderr

The process writes its pid to $SUITE_FAKE_STATE/pid-<pid>.
"""

import os
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

from fake_replies import ReplyingHandler
from stdio_loop import initialized, not_found

import ccweb_spec
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool
from ccweb_reference.wire import dumps

PORT = int(sys.argv[1])
WORDS = sys.argv[2:]
FAULTS = {int(w.split("=")[0]): w.split("=")[1] for w in WORDS if w.split("=")[0].isdigit()}
STATE = Path(os.environ["SUITE_FAKE_STATE"])
STORE = SessionStore(Path(os.environ["CC_WEB_SESSIONS_DIR"]))
SESSION = "suite-fake-session"
LOCK = threading.Lock()
CALLS = [0]


class Handler(ReplyingHandler):
    protocol_version = "HTTP/1.1"

    def json_text(self, message: dict) -> str:
        return dumps(message)  # lone surrogates escaped, like the reference

    def do_DELETE(self) -> None:
        self.reply(200, None, b"")

    def do_POST(self) -> None:
        if (posted := self.posted()) is None:
            return
        body, method, request_id = posted
        if method == "initialize":
            self.json_reply(initialized(body, "suite-fake-http"), headers={"Mcp-Session-Id": SESSION})
        elif self.wrong_session(SESSION):
            pass
        elif method == "tools/list":
            self.json_reply({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [ccweb_spec.tool_definition()]}})
        elif method == "tools/call":
            self.call(request_id, body.get("params") or {})
        else:
            self.json_reply(not_found(request_id))

    def call(self, request_id: object, params: dict) -> None:
        with LOCK:
            CALLS[0] += 1
            fault = FAULTS.get(CALLS[0])
        result, is_error = call_tool(STORE, params.get("arguments"), self.headers.get("X-CCWeb-Session-Id"))
        body = {"content": [{"type": "text", "text": dumps(result)}], "structuredContent": result, "isError": is_error}
        response = {"jsonrpc": "2.0", "id": request_id, "result": body}
        if self.fault_reply(fault):
            return
        if "sse" in WORDS:
            self.sse_reply(response, (1, 2), event_on_response=True)
        else:
            self.json_reply(response)


def main() -> None:
    (STATE / f"pid-{os.getpid()}").write_text("")
    if "exit" in WORDS:
        sys.stderr.write("fatal: port already taken\n")
        sys.exit(4)
    ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()


if __name__ == "__main__":
    main()
