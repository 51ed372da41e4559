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
  hs-hang       initialize is never answered (once it is read, $GATE_STATE/hung-<pid> is written)
  hold-cancel   (stdio) a tools/call without arguments is never answered; once a notifications/cancelled is
                read, $GATE_STATE/cancelled-<pid> is written (the cue: the runner now listens in PROTO-5's window)
  hs=500        (http) initialize gets HTTP 500; hs=ctype: text/html; hs=plain: the right answer as
                text/plain (Go's default); hs=redirect: 307
  sse           (http) replies to tools/call as an SSE stream
  trickle=N     (http) a tools/call whose maxChars is N opens an SSE stream and trickles bytes, never a
                newline (chosen by its arguments, not its arrival: under --jobs calls arrive in any order);
                once it started, $GATE_STATE/trickling-<pid> is written
  trickle-every=S  (http) ... a byte every S seconds (default 0.1)
  hang          (http) every tools/call is read and never answered, its connection held until the client
                closes it; once one is read, $GATE_STATE/silent-<pid> is written
  nan           every tools/call result carries "_meta": {"score": NaN} (not JSON)
  dup-envelope  every tools/call response repeats "jsonrpc", "id" and "result" (a first, empty result)
  dup-text      the JSON text block of every tools/call result starts with an extra "ok": false
  latin1        every tools/call result carries a text block "café", the reply encoded in Latin-1
  deep=N        the initialize result carries a _meta value nested N arrays deep
  huge          the tools/call result carries a member holding an integer of 5,000 digits
  pages=N       tools/list is served in N pages (decoy tools first, the tool on the last page)
  dup-tool      tools/list lists the tool a second time, on the last page, with required conversationId
  sse-ping      (http, with sse) the tools/call stream first sends a ping request and waits for the
                POSTed reply (5 s at most; without it the stream ends without the response)
  sse-poll=N    (http, with sse) the tools/call stream sends a priming event (id, retry) and closes,
                N times in a row; a GET with its Last-Event-ID gets the next one, then the response
  sse-cut       (http, with sse) the tools/call stream sends a notification and ends, with no event ID
  session       (http) initialize assigns Mcp-Session-Id gate-1, every reply repeats it
  session-change (http) ... and tools/call replies carry gate-2 instead

The HTTP server is ``gate_http.py``, imported in HTTP mode only (``http.server`` is no part of a stdio fake's start).

Every process (and the daemon) ends by itself after LIFETIME seconds, whatever the runner
does: a broken test never leaves it running for long. Its pid goes to $GATE_STATE/pid-<pid>.
"""

import json
import os
import signal
import sys
import time
from pathlib import Path

import ccweb_spec
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool
from ccweb_reference.wire import dumps

LIFETIME = 300
"""Longer than the longest run the gate tests allow (gate_cases.RUN_BOUND, 240 s): with 8 busy processes beside
the suite, the notification-storm run took 180-200 s, and at 120 s this alarm killed its server (signal 14)."""
KIND = sys.argv[1]
PORT = int(sys.argv[2]) if KIND == "http" else 0
WORDS = sys.argv[3:] if KIND == "http" else sys.argv[2:]
OPTIONS = dict(w.split("=", 1) for w in WORDS if "=" in w)
SLOW = float(OPTIONS.get("slow", "0"))
STORM = int(OPTIONS.get("storm", "0"))
PAD = int(OPTIONS.get("pad", "0"))
PAD_CHAR = OPTIONS.get("padchar", "p")
TRICKLE = int(OPTIONS.get("trickle", "0"))
TRICKLE_EVERY = float(OPTIONS.get("trickle-every", "0.1"))
DEEP = int(OPTIONS.get("deep", "0"))
PAGES = int(OPTIONS.get("pages", "1"))
POLLS = int(OPTIONS.get("sse-poll", "0"))
STORE = SessionStore(Path(os.environ["CC_WEB_SESSIONS_DIR"]))
STATE = Path(os.environ["GATE_STATE"])  # required: a stray run must not litter the working directory
NOTE = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "storm"}}


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
        return {"jsonrpc": "2.0", "id": request_id, "result": tools_page((message.get("params") or {}).get("cursor"))}
    if method == "tools/call":
        params = message.get("params") or {}
        if params.get("name") != ccweb_spec.tool_definition()["name"]:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "Unknown tool"}}
        result, is_error = call_tool(STORE, params.get("arguments"), source)
        content = [{"type": "text", "text": dumps(result)}]
        if PAD:
            content.append({"type": "text", "text": PAD_CHAR * PAD})
        if "dup-text" in WORDS:
            content[0]["text"] = '{"ok":false,' + content[0]["text"][1:]
        if "latin1" in WORDS:
            content.append({"type": "text", "text": "café"})
        body = {"content": content, "structuredContent": result, "isError": is_error}
        if "nan" in WORDS:
            body["_meta"] = {"score": float("nan")}
        return {"jsonrpc": "2.0", "id": request_id, "result": body}
    if method == "ping":
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}


def tools_page(cursor: object) -> dict:
    """One page of tools/list: decoys on every page but the last, which holds the tool."""
    page = int(cursor[5:]) if isinstance(cursor, str) and cursor.startswith("page-") else 0
    if page < PAGES - 1:
        decoy = {"name": f"decoy_{page}", "inputSchema": {"type": "object"}}
        return {"tools": [decoy], "nextCursor": f"page-{page + 1}"}
    tools = [ccweb_spec.tool_definition()]
    if "dup-tool" in WORDS:
        second = ccweb_spec.tool_definition()
        second["inputSchema"]["required"] = ["conversationId"]
        tools.append(second)
    return {"tools": tools}


def wire_bytes(message: dict, method: object) -> bytes:
    """The reply as sent, with the words' breakage of JSON applied."""
    text = dumps(message)
    if method == "initialize" and DEEP:
        text = text[:-2] + ',"_meta":{"deep":' + "[" * DEEP + "]" * DEEP + "}}}"
    if method == "tools/call" and "huge" in WORDS:
        text = text[:-2] + ',"huge":' + "9" * 5000 + "}}"
    if method == "tools/call" and "dup-envelope" in WORDS:
        text = f'{{"jsonrpc":"2.0","id":{dumps(message.get("id"))},"result":{{"content":[]}},{text[1:]}'
    if method == "tools/call" and "latin1" in WORDS:
        return text.encode("latin-1", errors="replace")
    return text.encode("utf-8", errors="surrogatepass")


# --- stdio -------------------------------------------------------------------------------


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def parse(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def invalid(message: object) -> dict:
    """The JSON-RPC error for text that is not JSON (-32700) or not a request (-32600)."""
    code, text = (-32700, "Parse error") if message is None else (-32600, "Invalid Request")
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": text}}


def held(message: dict) -> bool:
    """hold-cancel: whether the message goes unanswered (a tools/call without arguments, a cancellation)."""
    if message.get("method") == "notifications/cancelled":
        (STATE / f"cancelled-{os.getpid()}").write_text("")
        return True
    return message.get("method") == "tools/call" and not (message.get("params") or {}).get("arguments")


def serve_stdio() -> None:
    source = os.environ.get("CCWEB_SESSION_ID")
    note = dumps(NOTE) + "\n"
    for line in sys.stdin:
        if not line.strip():
            continue
        message = parse(line)
        if not isinstance(message, dict) or not isinstance(message.get("method", ""), str):
            write(dumps(invalid(message)) + "\n")
            continue
        if "hold-cancel" in WORDS and held(message):
            continue
        if "id" not in message:
            continue
        if message.get("method") == "initialize":
            if "hs-hang" in WORDS:
                (STATE / f"hung-{os.getpid()}").write_text("")  # the cue: the runner now waits for initialize
                time.sleep(LIFETIME)
            if "hs-garbage" in WORDS:
                write("gate fake: starting up, this line is not JSON\n")
                continue
        else:
            time.sleep(SLOW)
            if STORM:
                write(note * STORM)
        sys.stdout.buffer.write(wire_bytes(answer(message, source), message.get("method")) + b"\n")
        sys.stdout.flush()


def main() -> None:
    signal.alarm(LIFETIME)
    (STATE / f"pid-{os.getpid()}").write_text("")
    if "daemon" in WORDS:
        daemonise()
    if KIND == "http":
        import gate_http  # noqa: PLC0415 (only here: a stdio server never imports http.server)

        gate_http.serve(PORT, sys.modules[__name__])
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
