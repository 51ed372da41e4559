"""Benchmark: how often a call lands in the middle of a non-atomic save, before and after re-reads (D-14).

    .venv/bin/python bench/bench_torn_writes.py               # 1 MB every 5 ms and 256 KB every 20 ms
    .venv/bin/python bench/bench_torn_writes.py --calls 2000  # more calls, narrower figures

A separate process saves a realistic cc-web session over and over as cc-web does (truncate,
then write the same bytes, then pause); this process calls the tool in process
(``call_tool`` on a ``SessionStore``) as fast as it can, once with a single read per call
(the reference before D-14: ``TORN_PAUSES_S = ()``) and once with the re-reads. It prints the
rate of ``conversation_unreadable`` answers, the number of wrong answers (any other answer
than the one for the saved bytes; must be 0), and call times (median, p95, max).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_reference import CONVERSATION, cc_web_bytes, conversation

from ccweb_conformance.fixtures.torn_writer import NonAtomicRewriter
from ccweb_reference import store
from ccweb_reference.tool import call_tool

PATTERNS = ((1_515, 5.0), (380, 20.0))
"""(messages, pause in ms): about 1 MB every 5 ms and 256 KB every 20 ms, the issue's two patterns."""


def rewrite_forever(path: Path, pause_ms: float) -> None:
    """The rewriter process: saves the file's current bytes again and again until killed."""
    writer = NonAtomicRewriter(path, path.read_bytes(), pause_ms / 1000)
    writer.save()
    print("saving", flush=True)
    while True:
        time.sleep(writer.pause_s)
        writer.save()


def measure(path: Path, pause_ms: float, calls: int, pauses: tuple[float, ...]) -> dict[str, Any]:
    """Rates and call times of ``calls`` calls while the file is rewritten, with these re-read pauses."""
    reader = store.SessionStore(path.parent)
    arguments = {"conversationId": CONVERSATION}
    expected, _ = call_tool(reader, arguments, None)
    script = str(Path(__file__).resolve())
    command = [sys.executable, script, "--rewrite", str(path), "--pause-ms", str(pause_ms)]
    data = path.read_bytes()
    writer = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    saved = store.TORN_PAUSES_S
    store.TORN_PAUSES_S = pauses
    unreadable = wrong = 0
    times: list[float] = []
    try:
        assert writer.stdout is not None and writer.stdout.readline() == "saving\n"
        for _ in range(calls):
            started = time.perf_counter()
            result, is_error = call_tool(reader, arguments, None)
            times.append(time.perf_counter() - started)
            if is_error and result["error"]["code"] == "conversation_unreadable":
                unreadable += 1
            elif result != expected:
                wrong += 1
    finally:
        store.TORN_PAUSES_S = saved
        writer.kill()
        writer.wait(timeout=10)
        if writer.stdout is not None:
            writer.stdout.close()
        path.write_bytes(data)  # nothing half-written left behind
    ordered = sorted(times)
    return {
        "calls": calls,
        "unreadable": unreadable,
        "rate": unreadable / calls,
        "wrong": wrong,
        "median_ms": statistics.median(ordered) * 1000,
        "p95_ms": ordered[round(0.95 * (len(ordered) - 1))] * 1000,
        "max_ms": ordered[-1] * 1000,
    }


def main() -> int:
    """Measure every pattern with a single read and with re-reads; print a Markdown table."""
    parser = argparse.ArgumentParser(
        prog="bench_torn_writes", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per pattern and mode (default: 1000)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument("--rewrite", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--pause-ms", type=float, default=5.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rewrite is not None:
        rewrite_forever(args.rewrite, args.pause_ms)
        return 0
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ccweb-torn-") as folder:
        path = Path(folder) / f"{CONVERSATION}.json"
        for messages, pause_ms in PATTERNS:
            path.write_bytes(cc_web_bytes(conversation(messages)))
            size = path.stat().st_size
            for mode, pauses in (("single read (before)", ()), ("re-reads (after)", store.TORN_PAUSES_S)):
                figures = measure(path, pause_ms, args.calls, pauses)
                rows.append({"file_kb": size / 1024, "pause_ms": pause_ms, "mode": mode, **figures})
                print(f"  measured {mode} at {size / 1024:.0f} KB every {pause_ms:g} ms", file=sys.stderr)
    print("| file KB | saved every ms | reads per call | calls | unreadable | wrong | median ms | p95 ms | max ms |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['file_kb']:.0f} | {r['pause_ms']:g} | {r['mode']} | {r['calls']} "
            f"| {r['unreadable']} ({r['rate']:.1%}) | {r['wrong']} "
            f"| {r['median_ms']:.2f} | {r['p95_ms']:.2f} | {r['max_ms']:.2f} |"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
