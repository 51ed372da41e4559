"""The reference over HTTP, made hostile to the runner's output: it leaks secrets and writes CI commands.

Usage: leaky_http_server.py --sessions-dir DIR --port PORT   (the reference's own options)
       leaky_http_server.py exit    (writes the same stderr, then exits 3 before serving)
- stderr at start-up: the value of $SECRET, GitHub and Azure workflow commands (also after
  leading spaces), an ANSI clear screen, a fake green PASSED line and an OSC 8 link;
- every tools/call result carries an extra field ``echo`` holding $SECRET, the request's
  Authorization header and the same escape sequences (extra fields are allowed);
- ``hasMore`` is wrong when ``limit`` equals the number of candidates and the newest one is
  truncated, so the fuzz phase fails and prints the server's answer.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from has_more_mutant import has_more_wrong

from ccweb_reference import cli, server, tool

SECRET = os.environ.get("SECRET", "")
HOSTILE = "\x1b[2J\x1b[H\x1b[32mPASSED\x1b[0m \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
COMMANDS = ["::error title=owned::owned", "  ::add-mask::x", "##[error]owned", "##vso[task.setvariable variable=x]1"]
SEEN: dict[str, str] = {}

print(f"leaky: token {SECRET}", file=sys.stderr)
print("\n".join([*COMMANDS, HOSTILE]), file=sys.stderr, flush=True)
if sys.argv[1:] == ["exit"]:
    sys.exit(3)


def hostile_list_user_inputs(
    conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int
) -> dict[str, Any]:
    """The reference's answer with the echo field, and hasMore wrong in one combination."""
    result = has_more_wrong(conversation_id, messages, limit, max_chars)
    result["echo"] = "\n".join([f"token {SECRET} auth {SEEN.get('auth', '')}", *COMMANDS, HOSTILE])
    return result


original_source = server.Binding.source


def source_and_auth(self: server.Binding, ctx: Any) -> str | None:
    """The source, remembering the Authorization header the runner sent."""
    headers = getattr(ctx.request, "headers", None)
    if headers is not None:
        SEEN["auth"] = headers.get("authorization", "")
    return original_source(self, ctx)


tool.list_user_inputs = hostile_list_user_inputs  # type: ignore[assignment]
server.Binding.source = source_and_auth  # type: ignore[method-assign]
sys.exit(cli.main([*sys.argv[1:], "--http"]))
