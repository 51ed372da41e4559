"""A writer that saves a file the way cc-web does, over and over: truncate, then write (D-14).

cc-web saves a session with ``fs.writeFileSync(path, text)``: the file is opened with
``O_TRUNC`` (empty from then on) and the new text is written into it. A reader that comes
between the two sees an empty or partial file. :class:`NonAtomicRewriter` repeats that save
on a thread, with a pause between saves, writing the same bytes every time, so whatever a
correct reader answers during it is the answer for those bytes, or ``conversation_unreadable``.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from types import TracebackType

STOP_WAIT_S = 5.0


class NonAtomicRewriter:
    """Rewrites ``path`` with ``data`` in place every ``pause_s`` seconds while the context is open."""

    def __init__(self, path: Path, data: bytes, pause_s: float) -> None:
        self.path = path
        self.data = data
        self.pause_s = pause_s
        self.saves = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ccweb-torn-writer", daemon=True)
        self.error: OSError | None = None

    def save(self) -> None:
        """One save as ``writeFileSync`` does it: open with truncation, write everything, close."""
        fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0))
        try:
            view = memoryview(self.data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        self.saves += 1

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self.save()
                self._stop.wait(self.pause_s)
        except OSError as exc:  # the file went away: stop, and say so when the context closes
            self.error = exc

    def __enter__(self) -> NonAtomicRewriter:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(STOP_WAIT_S)
        self.save()  # leave the file whole
        if self.error is not None and kind is None:
            raise RuntimeError(f"the rewriter stopped: {self.error}")


class TornSave:
    """One save held torn for a set time: the runner, not the machine's load, decides how long.

    On entry the file is truncated and the first part of ``data`` written, as a reader that
    comes in the middle of ``writeFileSync`` sees it; a thread writes the rest ``complete_after_s``
    later (or on exit, if that comes first). :attr:`completed_after_s` says when the save was
    whole, measured from entry: a server that re-reads for the window D-14 asks for sees it
    whole when the save completed well inside that window, whatever the load.
    """

    def __init__(self, path: Path, data: bytes, complete_after_s: float, torn_bytes: int | None = None) -> None:
        self.path = path
        self.data = data
        self.complete_after_s = complete_after_s
        self.torn_bytes = len(data) // 2 if torn_bytes is None else torn_bytes
        self.completed_after_s: float | None = None
        self.error: OSError | None = None
        self._started = 0.0
        self._fd = -1
        self._lock = threading.Lock()
        self._exit = threading.Event()
        self._thread = threading.Thread(target=self._complete_later, name="ccweb-torn-save", daemon=True)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def _complete(self) -> None:
        with self._lock:
            if self.completed_after_s is not None:
                return
            try:
                self._write(self.data[self.torn_bytes :])
            finally:
                os.close(self._fd)
                self.completed_after_s = time.monotonic() - self._started

    def _complete_later(self) -> None:
        self._exit.wait(self.complete_after_s)
        try:
            self._complete()
        except OSError as exc:  # the file system failed the runner: said when the context closes
            self.error = exc

    def __enter__(self) -> TornSave:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0))
        self._started = time.monotonic()
        try:
            self._write(self.data[: self.torn_bytes])
        except OSError:
            os.close(self._fd)
            raise
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._exit.set()
        self._thread.join(STOP_WAIT_S)
        self._complete()  # whole in any case, even if the thread never ran
        if self.error is not None and kind is None:
            raise self.error
