"""A running server's stderr tail holds what it wrote before its answer, even when the thread draining the pipe
had read those bytes and not kept them yet (a loaded machine: it waits for the interpreter lock) — the last words
the process-limit judgement reads ("can't start new thread") must not be lost to that window."""

from __future__ import annotations

import sys
import time

import pytest

from ccweb_conformance.transport import process
from ccweb_conformance.transport.process import RingBuffer, ServerProcess

SERVER = (
    "import sys, time\n"
    "sys.stderr.write('RuntimeError: can\\'t start new thread\\n'); sys.stderr.flush()\n"
    "sys.stdout.write('answer\\n'); sys.stdout.flush()\n"
    "time.sleep(30)\n"
)
KEEP_DELAY_S = 0.3
"""How long the drain thread holds a chunk it read before keeping it: the window a loaded machine opens."""


def test_the_tail_holds_what_was_written_before_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    keep = RingBuffer.write

    def late_keep(self: RingBuffer, chunk: bytes) -> None:
        time.sleep(KEEP_DELAY_S)
        keep(self, chunk)

    monkeypatch.setattr(RingBuffer, "write", late_keep)
    server = ServerProcess([sys.executable, "-c", SERVER], {}, stdio=True)
    try:
        assert server.popen.stdout is not None
        assert server.popen.stdout.readline() == b"answer\n"
        time.sleep(0.05)  # the drain thread has the chunk by now, and keeps it only after KEEP_DELAY_S
        assert server.stderr_tail() == "RuntimeError: can't start new thread"
    finally:
        server.stop()
        server.close_pipes()
    assert process.STDERR_SETTLE >= KEEP_DELAY_S
