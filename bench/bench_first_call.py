"""Benchmark: a first call at 100,000 messages against ``json.loads``, in paired rounds.

    .venv/bin/python bench/bench_first_call.py              # 9 rounds, about a minute
    .venv/bin/python bench/bench_first_call.py --rounds 15

On a shared, noisy machine two figures taken minutes apart are not comparable, so every
round measures, back to back on the same 66 MB file: bare ``json.loads`` of its bytes,
reading the bytes, a first call (``call_tool`` on a file just rewritten, so never cached),
and the reading alone (``parse_conversation`` and the newest-first walk on bytes just read). It prints the median
of each, and the median of the per-round ratios to ``json.loads``.

Three more rows show the floor of this design, the pieces a first call cannot skip while it
keeps the contract's checks: reading into a buffer reused from round to round (no fresh
memory), the UTF-8 check of the whole file, and msgspec's skim of the JSON structure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_reference import CONVERSATION, cc_web_bytes, conversation

from ccweb_reference import decode
from ccweb_reference.core import list_user_inputs
from ccweb_reference.store import SessionStore, parse_conversation
from ccweb_reference.tool import call_tool

MESSAGES = 100_000


def _seconds(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def rounds(path: Path, count: int) -> list[dict[str, float]]:
    """Per round: json.loads, read, a first call, and the reading alone, in seconds."""
    data = path.read_bytes()
    reader = SessionStore(path.parent)
    arguments = {"conversationId": CONVERSATION}
    change = iter(range(10**9))

    def first_call() -> float:
        path.write_bytes(
            data.replace(b'"updated": "2026-11-30T09:30:00.000Z"', f'"updated": "{next(change):024d}"'.encode())
        )
        return _seconds(lambda: call_tool(reader, arguments, None))

    def parse_only() -> float:
        read = reader.read_bytes(CONVERSATION)
        return _seconds(lambda: list_user_inputs(CONVERSATION, parse_conversation(read), 15, 1000))

    reused = bytearray(len(data))

    def read_reused() -> float:
        with path.open("rb", buffering=0) as handle:
            return _seconds(lambda: handle.readinto(reused))

    first_call()  # warm: imports
    measured = []
    for _ in range(count):
        figures: dict[str, Any] = {"json_loads": _seconds(lambda: json.loads(data))}
        figures["read"] = _seconds(path.read_bytes)
        figures["first_call"] = first_call()
        figures["parse_and_walk"] = parse_only()
        figures["read_into_reused_buffer"] = read_reused()
        figures["utf8_check"] = _seconds(lambda: decode.is_utf8(data))
        figures["structure_skim"] = _seconds(lambda: decode.skim_session(data))
        measured.append(figures)
    path.write_bytes(data)
    return measured


def main() -> int:
    """Measure and print a Markdown table."""
    parser = argparse.ArgumentParser(prog="bench_first_call", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=9, help="paired rounds (default: 9)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ccweb-first-") as folder:
        path = Path(folder) / f"{CONVERSATION}.json"
        path.write_bytes(cc_web_bytes(conversation(MESSAGES)))
        size = path.stat().st_size / 1e6
        measured = rounds(path, args.rounds)
    print(f"{MESSAGES:,} messages, {size:.1f} MB, {args.rounds} paired rounds (medians)")
    print("| measure | ms | / json.loads |")
    print("|---|---:|---:|")
    names = tuple(measured[0])
    for name in names:
        ms = statistics.median(r[name] for r in measured) * 1000
        ratio = statistics.median(r[name] / r["json_loads"] for r in measured)
        print(f"| {name.replace('_', ' ')} | {ms:.1f} | {ratio:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
