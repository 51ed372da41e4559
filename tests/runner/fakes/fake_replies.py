"""What both fake HTTP servers share: quiet logging, whole replies, JSON replies, GET refused.

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

    def do_GET(self) -> None:
        self.reply(405, "text/plain", b"use POST")
