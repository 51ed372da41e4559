"""A legacy-era MCP server (stdio or HTTP) that misbehaves the way a CI gate must survive.

Usage: gate_server.py stdio WORD...   or   gate_server.py http PORT WORD...
It declares the spec's real tool and answers tools/call with the reference's result, so
untouched scenarios pass, except as the words say:

  slow=S        every reply but initialize's waits S seconds
  storm=N       N valid notifications before every reply but initialize's
  daemon        at start-up, a grandchild calls setsid and sleeps (a daemon left behind)
  pad=N         every tools/call result carries an extra text block of N characters
  padchar=C     ... each of them C (default p; 用 takes 3 bytes in UTF-8, sent unescaped)
  hs-garbage    initialize is answered with a line that is not JSON (stdio)
  hs-malformed  initialize is answered with a result whose protocolVersion is not a string
  hs-hang       initialize is never answered
  hs=500        (http) initialize gets HTTP 500; hs=ctype: text/html; hs=redirect: 307
  sse           (http) replies to tools/call as an SSE stream
  trickle=N     (http) the N-th tools/call opens an SSE stream and trickles bytes, never a newline

Every process (and the daemon) ends by itself after LIFETIME seconds, whatever the runner
does: a broken test never leaves it running for long. Its pid goes to $GATE_STATE/pid-<pid>.
"""

import json
import os
import signal
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

from fake_replies import ReplyingHandler

import ccweb_spec
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool
from ccweb_reference.wire import dumps

LIFETIME = 120
KIND = sys.argv[1]
PORT = int(sys.argv[2]) if KIND == "http" else 0
WORDS = sys.argv[3:] if KIND == "http" else sys.argv[2:]
OPTIONS = dict(w.split("=", 1) for w in WORDS if "=" in w)
SLOW = float(OPTIONS.get("slow", "0"))
STORM = int(OPTIONS.get("storm", "0"))
PAD = int(OPTIONS.get("pad", "0"))
PAD_CHAR = OPTIONS.get("padchar", "p")
TRICKLE = int(OPTIONS.get("trickle", "0"))
STORE = SessionStore(Path(os.environ["CC_WEB_SESSIONS_DIR"]))
STATE = Path(os.environ["GATE_STATE"])  # required: a stray run must not litter the working directory
NOTE = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "storm"}}
CALLS = [0]
LOCK = threading.Lock()


def daemonise() -> None:
    """Fork a grandchild that leaves the process group (setsid) and outlives its parent."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.alarm(LIFETIME)
            (STATE / f"daemon-{os.getpid()}").write_text("")
            time.sleep(LIFETIME)
        os._exit(0)
    os.wait()


def initialize_result(params: dict) -> dict:
    return {
        "protocolVersion": params.get("protocolVersion", "2025-06-18"),
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "gate-fake", "version": "0"},
    }


def answer(message: dict, source: str | None) -> dict:
    """The correct reply to a request (tools/call with the reference's result)."""
    method, request_id = message.get("method"), message.get("id")
    if method == "initialize":
        result = initialize_result(message.get("params") or {})
        if "hs-malformed" in WORDS:
            result["protocolVersion"] = 20251125
        return {"jsonrpc": "2.0", "id": request_id, "result": result}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": request_id, "result": {"tools": [ccweb_spec.tool_definition()]}}
    if method == "tools/call":
        params = message.get("params") or {}
        if params.get("name") != ccweb_spec.tool_definition()["name"]:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "Unknown tool"}}
        result, is_error = call_tool(STORE, params.get("arguments"), source)
        content = [{"type": "text", "text": dumps(result)}]
        if PAD:
            content.append({"type": "text", "text": PAD_CHAR * PAD})
        body = {"content": content, "structuredContent": result, "isError": is_error}
        return {"jsonrpc": "2.0", "id": request_id, "result": body}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


# --- stdio -------------------------------------------------------------------------------


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def serve_stdio() -> None:
    source = os.environ.get("CCWEB_SESSION_ID")
    note = dumps(NOTE) + "\n"
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if "id" not in message:
            continue
        if message.get("method") == "initialize":
            if "hs-hang" in WORDS:
                time.sleep(LIFETIME)
            if "hs-garbage" in WORDS:
                write("gate fake: starting up, this line is not JSON\n")
                continue
        else:
            time.sleep(SLOW)
            if STORM:
                write(note * STORM)
        write(dumps(answer(message, source)) + "\n")


# --- HTTP --------------------------------------------------------------------------------


class Handler(ReplyingHandler):
    protocol_version = "HTTP/1.1"

    def do_DELETE(self) -> None:
        self.reply(200, None, b"")

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in message:
            self.reply(202, None, b"")
            return
        method = message.get("method")
        if method == "initialize":
            fault = OPTIONS.get("hs")
            if fault == "500":
                self.reply(500, "text/plain", b"internal trouble")
                return
            if fault == "ctype":
                self.reply(200, "text/html", b"<html>not MCP</html>")
                return
            if fault == "redirect":
                self.reply(307, "text/plain", b"", {"Location": "/elsewhere"})
                return
        else:
            time.sleep(SLOW)
        if method == "tools/call":
            with LOCK:
                CALLS[0] += 1
                number = CALLS[0]
            if number == TRICKLE:
                self.trickle()
                return
        response = answer(message, self.headers.get("X-CCWeb-Session-Id"))
        if "sse" in WORDS and method == "tools/call":
            events = f"event: message\ndata: {dumps(NOTE)}\n\n" * STORM + f"event: message\ndata: {dumps(response)}\n\n"
            self.reply(200, "text/event-stream", events.encode())
            return
        self.reply(200, "application/json", dumps(response).encode())

    def trickle(self) -> None:
        """An SSE stream that sends a byte every 0.1 s and never ends a line."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"data: {")
        self.wfile.flush()
        deadline = time.monotonic() + LIFETIME
        try:
            while time.monotonic() < deadline:
                time.sleep(0.1)
                self.wfile.write(b" ")
                self.wfile.flush()
        except OSError:
            return


class QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-reply (the runner stopping us) is no traceback on stderr.

    The runner quotes the server's stderr in its messages, and the tests assert that no
    traceback shows: the fake's own socket errors must not look like the runner's.
    """

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        del request, client_address


def main() -> None:
    signal.alarm(LIFETIME)
    (STATE / f"pid-{os.getpid()}").write_text("")
    if "daemon" in WORDS:
        daemonise()
    if KIND == "http":
        QuietServer(("127.0.0.1", PORT), Handler).serve_forever()
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
