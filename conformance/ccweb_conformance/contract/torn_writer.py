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
