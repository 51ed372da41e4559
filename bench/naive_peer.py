"""The same tool written the obvious way with the SDK's high-level server (a benchmark peer, not a reference).

    python bench/naive_peer.py --sessions-dir DIR [--http --port N]

Each call opens ``<id>.json``, ``json.load``s the whole file and walks the messages; nothing
is cached, arguments are validated only by the SDK's type coercion. Not conformant in the
details (it trims with ``str.strip`` and counts like Python); it is here to be timed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

server = MCPServer("naive-peer")
SESSIONS = Path(os.environ.get("CC_WEB_SESSIONS_DIR", "."))


@server.tool(name="ccweb_list_user_inputs", description="Latest user inputs of a cc-web conversation.")
def list_user_inputs(conversationId: str | None = None, limit: int = 15, maxChars: int = 1000) -> dict[str, Any]:
    """Read the file, keep the user messages, spend the budget from the newest."""
    cid = re.sub(r"[^A-Za-z0-9-]", "", conversationId or os.environ.get("CCWEB_SESSION_ID", ""))
    with open(SESSIONS / f"{cid}.json", encoding="utf-8") as handle:
        session = json.load(handle)
    inputs = [m for m in session.get("messages") or [] if m.get("role") == "user" and str(m.get("content", "")).strip()]
    items: list[dict[str, Any]] = []
    remaining = maxChars
    for message in reversed(inputs[-limit:]):
        if remaining <= 0:
            break
        content = message["content"][:remaining]
        remaining -= len(content)
        items.insert(
            0,
            {
                "messageId": message.get("id"),
                "createdAt": message.get("timestamp"),
                "content": content,
                "contentChars": len(content),
                "originalChars": len(message["content"]),
                "truncated": len(content) < len(message["content"]),
            },
        )
    return {
        "ok": True,
        "conversationId": cid,
        "requestedLimit": limit,
        "maxChars": maxChars,
        "totalChars": sum(i["contentChars"] for i in items),
        "returnedCount": len(items),
        "hasMore": len(items) < len(inputs) or any(i["truncated"] for i in items),
        "items": items,
    }


def main() -> None:
    """Serve over stdio, or Streamable HTTP with ``--http``."""
    global SESSIONS  # noqa: PLW0603
    parser = argparse.ArgumentParser(prog="naive_peer")
    parser.add_argument("--sessions-dir", type=Path)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    if args.sessions_dir is not None:
        SESSIONS = args.sessions_dir
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    else:
        server.run()


if __name__ == "__main__":
    main()
