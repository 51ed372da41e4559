"""Line-oriented duplex pipes to a server: a child's stdin/stdout, or an in-process server."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from typing import IO

from ccweb_conformance.transport.channel import DEFAULT_LIMIT, MessageTooLarge
from ccweb_conformance.transport.process import ServerProcess

EOF_MARK = None
CHUNK = 65536
QUEUE_BYTES = 4 * 1024 * 1024
"""Bytes of complete lines held for the reader before the pump waits."""


class LineIO(ABC):
    """Write text lines, read byte lines with a timeout."""

    @abstractmethod
    def write_line(self, text: str) -> None:
        """Send ``text`` plus a newline; raises OSError when the peer is gone."""

    @abstractmethod
    def read_line(self, timeout: float) -> bytes | None:
        """The next line (a final unterminated fragment has no newline), None at end of stream.

        Raises TimeoutError when nothing arrives within ``timeout`` seconds, and
        :class:`MessageTooLarge` for a line over the message limit.
        """

    @abstractmethod
    def exit_status(self, wait: float = 0.0) -> str | None:
        """How the peer ended ("exited with code 1"), or None while it runs (after ``wait`` s)."""

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the peer's diagnostics ("" when there are none)."""
        return ""

    @abstractmethod
    def close(self) -> None:
        """Stop the peer and release everything."""


class QueueReader:
    """A thread moving lines from a binary stream into a queue, so reads can time out.

    Lines are split in one linear pass (each byte is looked at once). A line longer than
    ``limit`` bytes is not kept: its place in the queue holds a :class:`MessageTooLarge`, and
    its bytes are dropped up to the next newline. The queue holds at most ``QUEUE_BYTES``
    (plus one line): a server writing faster than the runner reads waits on its pipe.
    """

    def __init__(self, stream: IO[bytes], limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._items: deque[bytes | MessageTooLarge | None] = deque()
        self._queued = 0
        self._closed = False
        self._ready = threading.Condition()
        self._eof = False
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _put(self, item: bytes | MessageTooLarge | None) -> None:
        with self._ready:
            while self._queued > QUEUE_BYTES and not self._closed:
                self._ready.wait(0.1)
            self._items.append(item)
            self._queued += len(item) if isinstance(item, bytes) else 0
            self._ready.notify_all()

    def _pump(self, stream: IO[bytes]) -> None:
        pending: list[bytes] = []
        size, skipping = 0, False
        read = getattr(stream, "read1", stream.read)
        with contextlib.suppress(OSError, ValueError):  # the stream broke or was closed: its end
            while chunk := read(CHUNK):
                start = 0
                while start < len(chunk):
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start : end + 1]
                    start += len(piece)
                    if not skipping:
                        pending.append(piece)
                        size += len(piece)
                    if not skipping and size - (end >= 0) > self.limit:
                        self._put(MessageTooLarge(self.limit))
                        pending, size, skipping = [], 0, end < 0
                    elif end >= 0:
                        if not skipping:
                            self._put(b"".join(pending))
                        pending, size, skipping = [], 0, False
        if pending:
            self._put(b"".join(pending))
        self._put(EOF_MARK)

    def get(self, timeout: float) -> bytes | None:
        """Next line, or None at end of stream (sticky); TimeoutError after ``timeout``.

        Raises :class:`MessageTooLarge` in the place of a line over the limit.
        """
        if self._eof:
            return None
        deadline = time.monotonic() + max(timeout, 0.0)
        with self._ready:
            while not self._items:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                self._ready.wait(left)
            item = self._items.popleft()
            self._queued -= len(item) if isinstance(item, bytes) else 0
            self._ready.notify_all()
        if item is None:
            self._eof = True
        if isinstance(item, MessageTooLarge):
            raise item
        return item

    def release(self) -> None:
        """Stop holding lines back: the pump reads on to the end of the stream."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()


class ProcessLineIO(LineIO):
    """A spawned server's stdin and stdout."""

    def __init__(self, process: ServerProcess, limit: int = DEFAULT_LIMIT) -> None:
        self.process = process
        assert process.popen.stdin is not None and process.popen.stdout is not None
        self._stdin = process.popen.stdin
        self._reader = QueueReader(process.popen.stdout, limit)
        process.readers.append(self._reader.thread)

    def write_line(self, text: str) -> None:
        self._stdin.write(text.encode("utf-8", errors="surrogatepass") + b"\n")
        self._stdin.flush()

    def read_line(self, timeout: float) -> bytes | None:
        return self._reader.get(timeout)

    def exit_status(self, wait: float = 0.0) -> str | None:
        try:
            code = self.process.popen.wait(wait) if wait > 0 else self.process.popen.poll()
        except subprocess.TimeoutExpired:
            return None
        if code is None:
            return None
        return f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"

    def stderr_tail(self, lines: int = 20) -> str:
        return self.process.stderr_tail(lines)

    def close(self) -> None:
        self._reader.release()
        self.process.stop()
        self._reader.thread.join(2.0)
