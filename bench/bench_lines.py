"""How long the runner's line splitters take on one long line, fed in 64 KiB chunks.

    .venv/bin/python bench/bench_lines.py            # 1, 2, 4, 10 MB lines
    .venv/bin/python bench/bench_lines.py 1 16       # the sizes (MB) to time

Prints, per size, the seconds the SSE splitter (``transport.sse.split_lines``) and the stdio
pump (``transport.lines.QueueReader``) take to hand back one line of that size. Both scan each
byte once, so the time grows linearly with the size (before the fix: 1.8 / 5.0 / 33.8 s for
1 / 2 / 4 MB over SSE).
"""

from __future__ import annotations

import io
import sys
import time

from ccweb_conformance.transport.lines import QueueReader
from ccweb_conformance.transport.sse import split_lines

CHUNK = 65536


def sse_seconds(size: int) -> float:
    text = b"data: " + b"x" * size + b"\n\n"
    chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
    started = time.perf_counter()
    lines = list(split_lines(chunks, limit=64 * 1024 * 1024))
    elapsed = time.perf_counter() - started
    assert len(lines[0]) == size + 6
    return elapsed


def stdio_seconds(size: int) -> float:
    stream = io.BufferedReader(io.BytesIO(b"x" * size + b"\n"), buffer_size=CHUNK)  # type: ignore[arg-type]
    started = time.perf_counter()
    reader = QueueReader(stream, limit=64 * 1024 * 1024)
    line = reader.get(60.0)
    elapsed = time.perf_counter() - started
    assert line is not None and len(line) == size + 1
    return elapsed


def main(sizes_mb: list[float]) -> None:
    print(f"{'line':>8}  {'SSE split':>10}  {'stdio pump':>10}")
    for mb in sizes_mb:
        size = int(mb * 1024 * 1024)
        print(f"{mb:>6g} MB  {sse_seconds(size):>9.3f}s  {stdio_seconds(size):>9.3f}s")


if __name__ == "__main__":
    main([float(word) for word in sys.argv[1:]] or [1, 2, 4, 10])
