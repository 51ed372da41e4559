"""A legacy-era MCP stdio server for the profile's own tests: correct answers, bad performance.

Usage: profile_stdio.py MODE. Answers come from the reference's tool function, except:

  slow   every call reads the whole file afresh (no cache) and then sleeps 0.1 ms per KB of
         it, so a 1,000-message file (660 KB) costs about 66 ms a call, every call
  stale  the first answer per conversation is kept and served forever, also after the file
         changed (a cache keyed on the ID alone): wrong on every first call after a change

Every process writes its pid to $PROFILE_FAKE_STATE/pid-<pid> when that variable is set,
so tests can check none survives.
"""

import os
import sys
import time
from pathlib import Path

from stdio_loop import initialized, not_found, requests

import ccweb_spec
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool
from ccweb_reference.wire import dumps

MODE = sys.argv[1]
SESSIONS = Path(os.environ["CC_WEB_SESSIONS_DIR"])
SECONDS_PER_KB = 0.0001
STALE: dict[str, tuple[dict, bool]] = {}


def send(message: dict) -> None:
    sys.stdout.write(dumps(message) + "\n")
    sys.stdout.flush()


def answer(arguments: dict) -> tuple[dict, bool]:
    conversation = str(arguments.get("conversationId", ""))
    if MODE == "stale" and conversation in STALE:
        return STALE[conversation]
    if MODE == "slow":
        data = (SESSIONS / f"{conversation}.json").read_bytes()
        time.sleep(len(data) / 1024 * SECONDS_PER_KB)
    result = call_tool(SessionStore(SESSIONS), arguments, None)  # a fresh store: no cache
    if MODE == "stale":
        STALE[conversation] = result
    return result


def main() -> None:
    state = os.environ.get("PROFILE_FAKE_STATE")
    if state:
        Path(state, f"pid-{os.getpid()}").write_text("")
    for message, method, request_id in requests():
        if method == "initialize":
            send(initialized(message, f"profile-fake-{MODE}"))
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [ccweb_spec.tool_definition()]}})
        elif method == "tools/call":
            result, is_error = answer((message.get("params") or {}).get("arguments") or {})
            body = {
                "content": [{"type": "text", "text": dumps(result)}],
                "structuredContent": result,
                "isError": is_error,
            }
            send({"jsonrpc": "2.0", "id": request_id, "result": body})
        else:
            send(not_found(request_id))


if __name__ == "__main__":
    main()
