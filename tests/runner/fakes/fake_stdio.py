"""A tiny legacy-only MCP stdio server that misbehaves on tools/call in the way argv[1] names.

Modes: ok, exit, crash, hang, garbage, wrong-id, twice, flood, ping, counter, spawn, silent-discover.
It never imports the SDK, so it starts in milliseconds.
"""

import json
import os
import subprocess
import sys
import time

from stdio_loop import initialized, not_found, requests

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(request_id: object, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": request_id, "result": value})


def text_result(request_id: object, text: str) -> None:
    result(request_id, {"content": [{"type": "text", "text": text}], "isError": False})


def call_tool(request_id: object) -> None:
    if MODE == "crash":
        sys.stdout.write('{"jsonrpc": "2.0", "id": ')
        sys.stdout.flush()
        sys.stderr.write("crashing in the middle of a response\n")
        sys.stderr.flush()
        os._exit(7)
    elif MODE in ("hang", "spawn"):
        sys.stderr.write("hanging now\n")
        sys.stderr.flush()
        time.sleep(3600)
    elif MODE == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
    elif MODE == "wrong-id":
        text_result(int(request_id) + 100, "wrong id")
    elif MODE == "twice":
        text_result(request_id, "first")
        text_result(request_id, "second")
    elif MODE == "flood":
        line = "x" * 1023 + "\n"
        for _ in range(1536):
            sys.stderr.write(line)
        sys.stderr.write("flood done\n")
        sys.stderr.flush()
        text_result(request_id, "after the flood")
    elif MODE == "ping":
        send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hi"}})
        send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
        answer = json.loads(sys.stdin.readline())
        text_result(request_id, json.dumps(answer, sort_keys=True))
    else:
        text_result(request_id, "ok")


def main() -> None:
    if MODE == "exit":
        sys.stderr.write("fatal: cannot open the configuration\n")
        sys.exit(3)
    if MODE == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        sys.stderr.write(f"child {child.pid}\n")
        sys.stderr.flush()
    for message, method, request_id in requests():
        if MODE == "silent-discover" and method == "server/discover":
            continue
        if method == "initialize":
            send(initialized(message, "fake", version="2025-06-18" if MODE == "counter" else None))
        elif method == "tools/list":
            result(request_id, {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            call_tool(request_id)
        else:
            send(not_found(request_id))


if __name__ == "__main__":
    main()
