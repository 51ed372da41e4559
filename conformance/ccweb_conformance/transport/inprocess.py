"""The reference server in a background thread, served by the reference's own stdio loop over a pipe.

The runner's lines go into a pipe as a process's stdin would get them; the thread reads that
pipe with :func:`ccweb_reference.stdio.open_lines` and serves it with
:func:`ccweb_reference.stdio.serve_lines`, so it answers what ``ccweb-reference`` would, byte for
byte: the same parser (NaN and Infinity refused), the same writer, the same wait for pending
answers once the input ends.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from pathlib import Path
from typing import IO, TextIO

import anyio

from ccweb_conformance.transport.lines import LineIO
from ccweb_reference.server import Binding, build_server
from ccweb_reference.stdio import open_lines, serve_lines
from ccweb_reference.store import SessionStore

JOIN_TIMEOUT = 5.0


class InProcessLineIO(LineIO):
    """Lines in through a pipe, lines out through a queue; :meth:`close` stops the server."""

    def __init__(self, sessions_dir: Path, source: str | None) -> None:
        self._outbound: queue.Queue[bytes | None] = queue.Queue()
        self._server = build_server(SessionStore(sessions_dir), Binding(fixed_source=source))
        self._error: BaseException | None = None
        self._eof = False
        self._stop = threading.Event()
        read_fd, write_fd = os.pipe()
        lines = open_lines(read_fd, closefd=True)
        self._input: IO[bytes] = open(write_fd, "wb")  # noqa: SIM115 (closed by end_input or close)
        self._thread = threading.Thread(target=self._run, args=(lines,), name="ccweb-reference-in-process", daemon=True)
        try:
            self._thread.start()
        except BaseException:  # no thread left: the pipe is not left open
            lines.close()
            self._input.close()
            raise

    def _run(self, lines: TextIO) -> None:
        try:
            with lines:
                anyio.run(self._serve, lines)
        except BaseException as exc:
            self._error = exc
        finally:
            self._outbound.put(None)

    async def _serve(self, lines: TextIO) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(self._cancel_when_stopped, group.cancel_scope)
            await serve_lines(self._server, anyio.wrap_file(lines), self._outbound.put)
            group.cancel_scope.cancel()

    async def _cancel_when_stopped(self, scope: anyio.CancelScope) -> None:
        await anyio.to_thread.run_sync(self._stop.wait, abandon_on_cancel=True)
        scope.cancel()

    def write_line(self, text: str) -> None:
        if not self._thread.is_alive() or self._input.closed:
            raise BrokenPipeError("the in-process server has stopped")
        self._input.write(text.encode("utf-8", errors="surrogatepass") + b"\n")
        self._input.flush()

    def end_input(self) -> None:
        """End the server's input, as a closed stdin: it answers what it has read, then stops."""
        with contextlib.suppress(OSError):  # a line the stopped server never read
            self._input.close()

    def read_line(self, timeout: float) -> bytes | None:
        if self._eof:
            return None
        try:
            line = self._outbound.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None
        if line is None:
            self._eof = True
        return line

    def exit_status(self, wait: float = 0.0) -> str | None:
        self._thread.join(wait)
        if self._thread.is_alive():
            return None
        return "stopped" if self._error is None else f"stopped with {self._error!r}"

    def close(self) -> None:
        """Stop the server without waiting for pending answers (as the runner stops a process)."""
        self._stop.set()
        self.end_input()
        self._thread.join(JOIN_TIMEOUT)
