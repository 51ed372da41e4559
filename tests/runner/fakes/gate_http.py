"""The gate fake's HTTP server (``gate_server.py http PORT WORD...``): the words' HTTP faults, SSE streams and
sessions, each request answered as the gate server's script answers it.

Imported only in HTTP mode: a stdio gate fake, started far more often, never imports ``http.server``.
"""

import json
import os
import threading
import time
from http.server import ThreadingHTTPServer
from types import ModuleType

from fake_replies import ReplyingHandler

CALLS = [0]
LOCK = threading.Lock()
ANSWERED: dict[str, threading.Event] = {}
"""Server requests sent on an SSE stream (sse-ping) -> set when the runner's reply was POSTed."""
HELD: dict[str, str] = {}
"""sse-poll: event ID of a closed stream -> what a GET with that Last-Event-ID is sent."""


HANDSHAKE_FAULTS = {
    "500": lambda message, gate: (500, "text/plain", b"internal trouble", None),
    "ctype": lambda message, gate: (200, "text/html", b"<html>not MCP</html>", None),
    # what Go's net/http sends when a handler sets no Content-Type: the right answer, as text/plain
    "plain": lambda message, gate: (
        200,
        "text/plain; charset=utf-8",
        json.dumps(gate.answer(message, None)).encode(),
        None,
    ),
    "redirect": lambda message, gate: (307, "text/plain", b"", {"Location": "/elsewhere"}),
}
"""(http) ``hs=NAME``: how initialize is answered instead (status, Content-Type, body, headers)."""


class Handler(ReplyingHandler):
    protocol_version = "HTTP/1.1"

    @property
    def gate(self) -> ModuleType:
        """The gate server's script: its words and how it answers."""
        return self.server.gate  # type: ignore[attr-defined]

    def do_DELETE(self) -> None:
        self.reply(200, None, b"")

    def do_POST(self) -> None:
        gate = self.gate
        message = gate.parse(self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8", errors="replace"))
        if self.not_a_request(message):
            return
        assert isinstance(message, dict)
        method = message.get("method")
        if method == "initialize":
            fault = HANDSHAKE_FAULTS.get(gate.OPTIONS.get("hs") or "")
            if fault is not None:
                status, content_type, body, headers = fault(message, gate)
                self.reply(status, content_type, body, headers)
                return
        else:
            time.sleep(gate.SLOW)
        number = 0
        if method == "tools/call":
            with LOCK:
                CALLS[0] += 1
                number = CALLS[0]
            if "hang" in gate.WORDS:
                self.hang()
                return
            arguments = (message.get("params") or {}).get("arguments") or {}
            if gate.TRICKLE and arguments.get("maxChars") == gate.TRICKLE:
                self.trickle()
                return
        response = gate.answer(message, self.headers.get("X-CCWeb-Session-Id"))
        if "sse" in gate.WORDS and method == "tools/call":
            self.sse(response, number)
            return
        self.reply(200, "application/json", gate.wire_bytes(response, method), self.session_headers(method))

    def not_a_request(self, message: object) -> bool:
        """Answer what is no request (invalid text, a notification, the runner's reply to our ping)."""
        gate = self.gate
        if not isinstance(message, dict) or not isinstance(message.get("method", ""), str):
            self.reply(400, "application/json", gate.dumps(gate.invalid(message)).encode())
            return True
        if "method" not in message and str(message.get("id")) in ANSWERED:
            ANSWERED[str(message["id"])].set()
        if "method" in message and "id" in message:
            return False
        self.reply(202, None, b"", self.session_headers(None))
        return True

    def session_headers(self, method: object) -> dict:
        gate = self.gate
        if "session" not in gate.WORDS and "session-change" not in gate.WORDS:
            return {}
        return {"Mcp-Session-Id": "gate-2" if method == "tools/call" and "session-change" in gate.WORDS else "gate-1"}

    def sse(self, response: dict, number: int) -> None:
        """The tools/call reply as an SSE stream (with a ping first, or closed for polling, as the words say)."""
        gate = self.gate
        data = gate.wire_bytes(response, "tools/call").decode("utf-8", errors="surrogateescape")
        last = f"event: message\ndata: {data}\n\n"
        events = f"event: message\ndata: {gate.dumps(gate.NOTE)}\n\n" * gate.STORM
        if "sse-cut" in gate.WORDS:
            self.reply(200, "text/event-stream", f"event: message\ndata: {gate.dumps(gate.NOTE)}\n\n".encode())
            return
        if "sse-ping" in gate.WORDS:
            ping_id = f"gate-ping-{number}"
            ANSWERED[ping_id] = threading.Event()
            ping = {"jsonrpc": "2.0", "id": ping_id, "method": "ping"}
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(f"event: message\ndata: {gate.dumps(ping)}\n\n".encode())
            self.wfile.flush()
            if ANSWERED[ping_id].wait(5.0):
                self.wfile.write((events + last).encode("utf-8", errors="surrogateescape"))
            self.close_connection = True
            return
        if gate.POLLS:
            for poll in range(2, gate.POLLS + 1):  # the GET after event call-N-k gets the priming of call-N-(k-1)
                HELD[f"call-{number}-{poll}"] = f"id: call-{number}-{poll - 1}\nretry: 50\ndata: \n\n"
            HELD[f"call-{number}-1"] = events + f"id: call-{number}-0\n" + last
            priming = f"id: call-{number}-{gate.POLLS}\nretry: 50\ndata: \n\n"
            self.reply(200, "text/event-stream", priming.encode(), self.session_headers("tools/call"))
            return
        self.reply(200, "text/event-stream", (events + last).encode("utf-8", errors="surrogateescape"))

    def do_GET(self) -> None:
        held = HELD.pop(self.headers.get("Last-Event-ID", ""), None)
        if held is None:
            self.reply(405, "text/plain", b"use POST")
            return
        self.reply(200, "text/event-stream", held.encode("utf-8", errors="surrogateescape"))

    def hang(self) -> None:
        """Say nothing until the client hangs up (the cue: ``$GATE_STATE/silent-<pid>``, once the call was read)."""
        (self.gate.STATE / f"silent-{os.getpid()}").write_text("")
        self.connection.recv(1)
        self.close_connection = True

    def trickle(self) -> None:
        """An SSE stream that sends a byte every ``trickle-every`` seconds and never ends a line (the cue:
        ``$GATE_STATE/trickling-<pid>``, once its first bytes were sent)."""
        gate = self.gate
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"data: {")
        self.wfile.flush()
        (gate.STATE / f"trickling-{os.getpid()}").write_text("")
        deadline = time.monotonic() + gate.LIFETIME
        try:
            while time.monotonic() < deadline:
                time.sleep(gate.TRICKLE_EVERY)
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

    def __init__(self, port: int, gate: ModuleType) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.gate = gate

    def handle_error(self, request: object, client_address: object) -> None:
        del request, client_address


def serve(port: int, gate: ModuleType) -> None:
    """Serve on 127.0.0.1:``port`` until the process ends, answering as ``gate`` (the script's module) says."""
    QuietServer(port, gate).serve_forever()
