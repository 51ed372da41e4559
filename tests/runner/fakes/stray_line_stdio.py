"""The reference server with the most common stdio mistake made inside the tool: one log line on stdout.

Usage: stray_line_stdio.py [ccweb-reference args...], e.g. ``--sessions-dir {sessions_dir}``.

Every ``tools/call`` of the tool writes ``listing user inputs`` to stdout (a ``console.log`` in the
handler of a Node server) before its answer; the handshake and ``tools/list`` are clean. Everything
else is the reference. The runner sees a line that is not JSON-RPC on the MCP channel in every
scenario that calls the tool: the same protocol fault, repeated.
"""

import sys
from typing import Any

from ccweb_reference import cli, server

STRAY_LINE = "listing user inputs\n"
_call_tool = server.call_tool


def _logging_call_tool(*args: Any, **kwargs: Any) -> Any:
    sys.stdout.write(STRAY_LINE)
    sys.stdout.flush()
    return _call_tool(*args, **kwargs)


server.call_tool = _logging_call_tool  # type: ignore[assignment]  # build_server looks it up at call time

if __name__ == "__main__":
    sys.exit(cli.main())
