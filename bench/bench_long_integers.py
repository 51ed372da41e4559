"""Benchmark: how long the reference takes to answer a file holding a very long integer (D-8).

    .venv/bin/python bench/bench_long_integers.py                  # 1,000,000 digits, 5 calls per file
    .venv/bin/python bench/bench_long_integers.py --digits 5000    # just past Python's 4,300-digit limit

Each file holds one user message and the integer in one place: a field the tool reads (``content``,
``id``), a field it does not, the document itself, or beside a lone surrogate escape (only
``json.loads`` reads that file: the generic path). Every call is in process (``call_tool`` on a
fresh ``SessionStore``, so no result is cached); it prints each file's answer and its median and
slowest call. D-8 asks for the usual bounded time; the reference aims at well under a second.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool

KEPT = b'{"role": "user", "content": "kept", "timestamp": "t"}'


def files(number: bytes) -> dict[str, bytes]:
    """The file for each place the integer is put."""
    return {
        "in content": b'{"messages": [%s, {"role": "user", "content": %s}]}' % (KEPT, number),
        "in id": b'{"messages": [%s, {"role": "user", "content": "x", "id": %s}]}' % (KEPT, number),
        "in a field not read": b'{"messages": [%s, {"role": "user", "content": "x", "n": %s}]}' % (KEPT, number),
        "in the document": b'{"n": %s, "messages": [%s]}' % (number, KEPT),
        "beside a lone surrogate": b'{"n": %s, "messages": [{"role": "user", "content": "\\udc00"}]}' % number,
    }


def main() -> None:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--digits", type=int, default=1_000_000, help="the integer's digits (default: 1,000,000)")
    parser.add_argument("--calls", type=int, default=5, help="calls per file (default: 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ccweb-bench-") as folder:
        sessions = Path(folder)
        for n, (place, data) in enumerate(files(b"9" * args.digits).items()):
            (sessions / f"f{n}.json").write_bytes(data)
            times, answer = [], ""
            for _ in range(args.calls):
                started = time.perf_counter()
                result, is_error = call_tool(SessionStore(sessions), {"conversationId": f"f{n}"}, None)
                times.append(time.perf_counter() - started)
                answer = result["error"]["code"] if is_error else f"ok, {result['returnedCount']} item(s)"
            print(
                f"{args.digits:,} digits {place:<24} {answer:<26} median {statistics.median(times) * 1000:7.1f} ms,"
                f" slowest {max(times) * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    main()
