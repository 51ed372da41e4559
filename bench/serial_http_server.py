"""An HTTP MCP server that answers one request at a time, for timing ``--jobs`` against it.

    ccweb-conformance run --http-cmd ".venv/bin/python bench/serial_http_server.py {port}" \\
        --url "http://127.0.0.1:{port}/mcp"

Its answers are ``bench/fast_server.py``'s (the reference's ``call_tool``: the same store, D-14 re-read
window and cache), with the source conversation read from each request's header. Connections are accepted
side by side, but one lock is held around every request: requests are answered one after another, as a
server with one worker does. Under ``--jobs N`` the runner's lanes are N connections to it, so their calls
queue behind each other.

``--delay S`` adds S seconds to every answer but ``initialize``'s (a slow server); ``--start S`` waits S
seconds before it listens (a slow start); ``--hang`` never answers ``tools/call`` (a server that hangs).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fast_server import PARSE_ERROR, Server

import ccweb_spec
from ccweb_reference.wire import dumps


class Handler(BaseHTTPRequestHandler):
    """POST /mcp answered with JSON under the one lock; notifications 202; DELETE 200; GET refused."""

    protocol_version = "HTTP/1.1"
    server: Serial

    def log_message(self, format: str, *args: object) -> None:  # keep stderr quiet
        del format, args

    def _reply(self, status: int, body: bytes, content_type: str | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._reply(405, b"use POST", "text/plain")

    def do_DELETE(self) -> None:
        self._reply(200, b"")

    def do_POST(self) -> None:
        try:
            message: Any = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        except ValueError:
            error = {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "Parse error"}}
            self._reply(400, dumps(error).encode(), "application/json")
            return
        method = message.get("method") if isinstance(message, dict) else None
        with self.server.one_at_a_time:
            if method == "tools/call" and self.server.hang:
                threading.Event().wait()  # never answered: the runner's --timeout ends the call
            if method != "initialize":
                time.sleep(self.server.delay)
            self.server.answers.source = self.headers.get(self.server.source_header)
            response = self.server.answers.answer(message)
        if response is None:
            self._reply(202, b"")
            return
        self._reply(200, dumps(response).encode(), "application/json")


class Serial(ThreadingHTTPServer):
    """The server, its answers and how it misbehaves."""

    daemon_threads = True
    request_queue_size = 128  # a server's usual backlog: the pipelining scenarios open many connections at once

    def __init__(self, port: int, delay: float, hang: bool) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.answers = Server()
        self.one_at_a_time = threading.Lock()
        """Held around every request: one answered at a time."""
        self.delay = delay
        self.hang = hang
        self.source_header = ccweb_spec.binding().source_header


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--delay", type=float, default=0.0, metavar="S")
    parser.add_argument("--start", type=float, default=0.0, metavar="S")
    parser.add_argument("--hang", action="store_true")
    args = parser.parse_args()
    time.sleep(args.start)
    Serial(args.port, args.delay, args.hang).serve_forever()


if __name__ == "__main__":
    main()
