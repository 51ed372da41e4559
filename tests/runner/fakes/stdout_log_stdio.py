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

from stdio_loop import initialized, not_found, requests

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
    for message, method, request_id in requests():
        if MODE == "silent":
            time.sleep(3600)
        if method == "initialize":
            answer_id = request_id + 100 if MODE == "wrong-id" and isinstance(request_id, int) else request_id
            send(initialized(message, "stdout-log", answer_id=answer_id))
        else:
            send(not_found(request_id))


if __name__ == "__main__":
    main()
