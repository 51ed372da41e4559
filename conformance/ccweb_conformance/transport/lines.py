"""Line-oriented duplex pipes to a server: a child's stdin/stdout, or an in-process server."""

from __future__ import annotations

import queue
import subprocess
import threading
from abc import ABC, abstractmethod
from typing import IO

from ccweb_conformance.transport.process import ServerProcess

EOF_MARK = None


class LineIO(ABC):
    """Write text lines, read byte lines with a timeout."""

    @abstractmethod
    def write_line(self, text: str) -> None:
        """Send ``text`` plus a newline; raises OSError when the peer is gone."""

    @abstractmethod
    def read_line(self, timeout: float) -> bytes | None:
        """The next line (a final unterminated fragment has no newline), None at end of stream.

        Raises TimeoutError when nothing arrives within ``timeout`` seconds.
        """

    @abstractmethod
    def exit_status(self, wait: float = 0.0) -> str | None:
        """How the peer ended ("exited with code 1"), or None while it runs (after ``wait`` s)."""

    @abstractmethod
    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of the peer's diagnostics ("" when there are none)."""

    @abstractmethod
    def close(self) -> None:
        """Stop the peer and release everything."""


class QueueReader:
    """A thread moving lines from a binary stream into a queue, so reads can time out."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self._eof = False
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: IO[bytes]) -> None:
        try:
            for line in iter(stream.readline, b""):
                self.lines.put(line)
        except (OSError, ValueError):
            pass
        self.lines.put(EOF_MARK)

    def get(self, timeout: float) -> bytes | None:
        """Next line, or None at end of stream (sticky); TimeoutError after ``timeout``."""
        if self._eof:
            return None
        try:
            line = self.lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None
        if line is None:
            self._eof = True
        return line

    def join(self, timeout: float) -> None:
        """Wait for the pump thread to finish."""
        self._thread.join(timeout)


class ProcessLineIO(LineIO):
    """A spawned server's stdin and stdout."""

    def __init__(self, process: ServerProcess) -> None:
        self.process = process
        assert process.popen.stdin is not None and process.popen.stdout is not None
        self._stdin = process.popen.stdin
        self._reader = QueueReader(process.popen.stdout)

    def write_line(self, text: str) -> None:
        self._stdin.write(text.encode("utf-8", errors="surrogatepass") + b"\n")
        self._stdin.flush()

    def read_line(self, timeout: float) -> bytes | None:
        return self._reader.get(timeout)

    def exit_status(self, wait: float = 0.0) -> str | None:
        try:
            code = self.process.popen.wait(wait) if wait > 0 else self.process.returncode()
        except subprocess.TimeoutExpired:
            return None
        if code is None:
            return None
        return f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"

    def stderr_tail(self, lines: int = 20) -> str:
        return self.process.stderr_tail(lines)

    def close(self) -> None:
        self.process.stop()
        self._reader.join(2.0)
