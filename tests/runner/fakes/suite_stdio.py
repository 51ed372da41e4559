"""A legacy-era MCP stdio server for whole runs of the suite, correct except where its arguments say.

Usage: suite_stdio.py WORD... It declares the spec's real tool and answers tools/call with
the reference's result object (so untouched scenarios pass), except as the words say.
``N=FAULT`` makes the N-th tools/call of the whole run (counted across restarts in
$SUITE_FAKE_STATE/calls) misbehave:

  N=crash        half a response line, a line on stderr, exit code 9
  N=hang         never answers
  N=wrong-id     answered under another id
  N=twice        answered twice
  N=garbage      a line that is not JSON
  N=interleaved  the answer written into the middle of a notification, on one line (two writers, no lock)
  N=torn         the same with the answer's newline: the notification's tail is left on a line of its own
  N=split        the response line written in two pieces, 0.2 s apart (correct)
  N=big          the correct answer plus a 10 MB text block (allowed beside it, D-10)
  N=huge-id      answered under an id of 5,000 digits (valid JSON, beyond Python's digit limit)
  N=huge-meta    the correct answer with a 5,000-digit integer in the result's _meta
  N=undecodable  the correct answer, a file named b"\\xff.tmp" created and removed in the sessions directory first
  N=internal     a JSON-RPC internal error (-32603), as MCP servers answer a handler that raised
  N=no-thread    the same, after a traceback on stderr ending "RuntimeError: can't start new thread"

Other words: ``exit`` (exit code 3 at start-up, one line on stderr), ``slow=S`` (every call
sleeps S seconds first), ``flood`` (1 MB of stderr at start-up and 1.5 MB before every answer).

Every process writes its pid to $SUITE_FAKE_STATE/pid-<pid> so tests can check none survives.
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

WORDS = sys.argv[1:]
FAULTS = {int(w.split("=")[0]): w.split("=")[1] for w in WORDS if w.split("=")[0].isdigit()}
SLOW = float(next((w.split("=")[1] for w in WORDS if w.startswith("slow=")), "0"))
STATE = Path(os.environ["SUITE_FAKE_STATE"])
STORE = SessionStore(Path(os.environ["CC_WEB_SESSIONS_DIR"]))
SOURCE = os.environ.get("CCWEB_SESSION_ID")
BIG = 10 * 1024 * 1024
HUGE = "9" * 5000
"""An integer's digits: valid JSON, more than Python's int() converts by default."""


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def send(message: dict) -> None:
    write(dumps(message) + "\n")


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def next_call_number() -> int:
    """The run-wide number of this tools/call (processes run one after another)."""
    counter = STATE / "calls"
    number = int(counter.read_text()) + 1 if counter.exists() else 1
    staged = STATE / f"calls-{os.getpid()}"
    staged.write_text(str(number))
    staged.replace(counter)  # atomic: a reader never sees a truncated counter
    return number


def tool_response(request_id: object, params: dict) -> dict:
    if params.get("name") != ccweb_spec.tool_definition()["name"]:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32602, "message": "Unknown tool"}}
    result, is_error = call_tool(STORE, params.get("arguments"), SOURCE)
    content = [{"type": "text", "text": dumps(result)}]
    body = {"content": content, "structuredContent": result, "isError": is_error}
    return {"jsonrpc": "2.0", "id": request_id, "result": body}


def answered_oddly(fault: str, request_id: object, response: dict) -> bool:
    """The faults of an answer that is valid JSON the runner cannot read, or an internal error; True when answered."""
    if fault == "huge-id":
        write(dumps({**response, "id": "HUGE"}).replace('"HUGE"', HUGE, 1) + "\n")
    elif fault == "huge-meta" and "result" in response:
        response["result"]["_meta"] = {"size": "HUGE"}
        write(dumps(response).replace('"HUGE"', HUGE, 1) + "\n")
    elif fault in ("internal", "no-thread"):
        if fault == "no-thread":
            say("Traceback (most recent call last):\nRuntimeError: can't start new thread")
        send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": "Internal server error"}})
    else:
        return False
    return True


def call(request_id: object, params: dict) -> None:
    number = next_call_number()
    fault = FAULTS.get(number)
    response = tool_response(request_id, params)
    time.sleep(SLOW)
    if "flood" in WORDS:
        sys.stderr.write(("e" * 1023 + "\n") * 1536)
        sys.stderr.flush()
    if fault == "crash":
        # stderr first, and a pause: the runner reads stderr on another thread, and takes the
        # tail as soon as stdout ends (it does not wait for that thread to reach end of file)
        say(f"suite fake: crashing on call {number}")
        time.sleep(0.3)
        text = dumps(response)
        write(text[: len(text) // 2])
        os._exit(9)
    elif fault == "hang":
        say(f"suite fake: hanging on call {number}")
        time.sleep(3600)
    elif fault == "wrong-id":
        response["id"] = int(request_id) + 100
    elif fault == "twice":
        send(response)
    elif fault == "garbage":
        write("this is not JSON\n")
        return
    elif fault == "interleaved":  # two writers without a lock: a log notification cut into by the answer
        note = dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
        write(note[:20] + dumps(response) + note[20:] + "\n")
        return
    elif fault == "torn":  # the same, the answer with its newline: the notification's tail on a line of its own
        note = dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}})
        write(note[:20] + dumps(response) + "\n" + note[20:] + "\n")
        return
    elif fault == "split":
        text = dumps(response) + "\n"
        write(text[: len(text) // 2])
        time.sleep(0.2)
        write(text[len(text) // 2 :])
        return
    elif fault is not None and answered_oddly(fault, request_id, response):
        return
    elif fault == "undecodable":
        transient = os.path.join(os.fsencode(os.environ["CC_WEB_SESSIONS_DIR"]), b"\xff.tmp")
        Path(os.fsdecode(transient)).write_bytes(b"")
        os.unlink(transient)
    elif fault == "big" and "result" in response:
        response["result"]["content"].append({"type": "text", "text": "x" * BIG})
    send(response)


def main() -> None:
    (STATE / f"pid-{os.getpid()}").write_text("")
    if "exit" in WORDS:
        say("fatal: cannot open the configuration file")
        sys.exit(3)
    if "flood" in WORDS:
        sys.stderr.write(("s" * 1023 + "\n") * 1024)
        sys.stderr.flush()
    for message, method, request_id in requests():
        if method == "initialize":
            send(initialized(message, "suite-fake"))
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [ccweb_spec.tool_definition()]}})
        elif method == "tools/call":
            call(request_id, message.get("params") or {})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": request_id, "result": {}})
        else:
            send(not_found(request_id))


if __name__ == "__main__":
    main()
