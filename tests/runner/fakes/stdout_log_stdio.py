"""A stdio MCP server with the most common Node mistake: it logs one line to stdout.

Usage: stdout_log_stdio.py [MODE]. It prints ``MODE``'s fault, then answers like a correct
legacy-era server would (initialize, tools/list with an echo tool):

  log        one log line on stdout before the first answer (``console.log`` in Node)
  exit       one line on stderr, then exit code 3 before answering anything
  silent     reads requests, never answers
  wrong-id   answers initialize under another id

It never imports the SDK, so it starts in milliseconds.
"""

import json
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "log"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    if MODE == "exit":
        sys.stderr.write("fatal: cannot open the configuration\n")
        sys.exit(3)
    if MODE == "log":
        sys.stdout.write("Server listening on stdio\n")
        sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if "id" not in message:
            continue
        if MODE == "silent":
            time.sleep(3600)
        if method == "initialize":
            answer_id = request_id + 100 if MODE == "wrong-id" and isinstance(request_id, int) else request_id
            send(
                {
                    "jsonrpc": "2.0",
                    "id": answer_id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "stdout-log", "version": "0"},
                    },
                }
            )
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
