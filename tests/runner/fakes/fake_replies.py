"""What both fake HTTP servers share: quiet logging, whole replies, JSON replies, GET refused, the
HTTP faults and the SSE stream they send.

A module beside them, since each runs as a script (its folder is then on ``sys.path``).
"""

import json
from http.server import BaseHTTPRequestHandler


class ReplyingHandler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # keep stderr quiet
        pass

    def json_text(self, message: dict) -> str:
        """How a JSON reply is written; a fake may write it differently."""
        return json.dumps(message)

    def reply(self, status: int, content_type: str | None, body: bytes, headers: dict | None = None) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def json_reply(self, message: dict, status: int = 200, headers: dict | None = None) -> None:
        self.reply(status, "application/json", self.json_text(message).encode(), headers)

    def posted(self) -> tuple[dict, object, object] | None:
        """The JSON-RPC request posted, its method and id; None for a notification (answered 202)."""
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if "id" not in body:
            self.reply(202, None, b"")
            return None
        return body, body.get("method"), body["id"]

    def wrong_session(self, session: str) -> bool:
        """Answer 404 when the request does not carry ``session``; True when it did not."""
        if self.headers.get("Mcp-Session-Id") == session:
            return False
        self.json_reply({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "bad session"}}, 404)
        return True

    def do_GET(self) -> None:
        self.reply(405, "text/plain", b"use POST")

    def fault_reply(self, fault: str | None) -> bool:
        """Send the HTTP fault named (``500``: HTTP 500 with plain text; ``ctype``: HTML with 200); False: none."""
        if fault == "500":
            self.reply(500, "text/plain", b"internal trouble")
        elif fault == "ctype":
            self.reply(200, "text/html", b"<html>not MCP</html>")
        else:
            return False
        return True

    def sse_reply(self, response: dict, ids: tuple[int, int], *, event_on_response: bool) -> None:
        """An SSE stream with comments, a notification event, then ``response`` split over two data lines."""
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}
        text = self.json_text(response)
        half = text.index('"result"')
        event = "event: message\n" if event_on_response else ""
        stream = (
            ": a comment line\n\n"
            f"id: {ids[0]}\nevent: message\ndata: {self.json_text(note)}\n\n"
            ": another comment\n"
            f"id: {ids[1]}\n{event}data: {text[:half]}\ndata: {text[half:]}\n\n"
        )
        self.reply(200, "text/event-stream", stream.encode())
