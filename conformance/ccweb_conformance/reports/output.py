"""Where reports go: a file, written whole or not at all, or stdout for ``-``.

A writer returns its report's text, rendered from a model whose secrets are already redacted, its server text
made safe by the format (:mod:`ccweb_conformance.reports.neutral`). :func:`place` writes it once: to a temporary
file beside its target (same folder, so the same file system) renamed over the target, so a reader (a later CI
step, ``if: always()``) sees the whole report or none, and a write that fails (a full disk) leaves no partial
file behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ccweb_conformance.options import STDOUT, open_on, special_file
from ccweb_conformance.transport import signals

__all__ = ["STDOUT", "append_to", "is_stdout", "place", "reader_may_leave", "write_atomically", "write_special"]


def is_stdout(path: Path | str | None) -> bool:
    """Whether a report path means stdout: ``-``, or a path to the regular file stdout is redirected to."""
    return path is not None and (str(path) == STDOUT or own_descriptor(path) == 1)


def own_descriptor(path: Path | str) -> int | None:
    """1 or 2 when ``path`` reaches the regular file the runner's stdout or stderr is redirected to
    (``--json /dev/stdout > report.json``), else None.

    Such a report is written through the descriptor: a rename over the path would replace the link
    (``/dev/stdout`` itself) or take the file from under the shell's redirection.
    """
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return next((number for number in (1, 2) if stat.S_ISREG(found.st_mode) and open_on(number, found)), None)


@contextlib.contextmanager
def reader_may_leave(stream: IO[str]) -> Iterator[None]:
    """Console output whose reader may stop reading (``| head``): what it did not read is dropped, quietly.

    The verdict does not depend on who reads the console: the reports are written before it,
    and the exit code stays the run's (a passed run cut short by ``| head`` still exits 0).
    """
    try:
        with signals.console_bounded():  # after a signal, a reader that takes nothing cannot hold the command
            yield
            stream.flush()
    except (BrokenPipeError, signals.ConsoleStalled):
        number = stream.fileno()
        also = [2] if number == 1 and _same_file(1, 2) else []  # 2>&1 into the same stalled pipe
        nowhere = os.open(os.devnull, os.O_WRONLY)
        try:
            for target in (number, *also):
                os.dup2(nowhere, target)  # Python's final flush of the buffered rest goes nowhere, silently
        finally:
            os.close(nowhere)


def _same_file(first: int, second: int) -> bool:
    with contextlib.suppress(OSError):
        return open_on(second, os.fstat(first)) and not os.isatty(first)
    return False


def _permissions() -> int:
    """The mode a new file gets from the process's umask (0o644 under the usual 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``; nothing left on failure.

    A path that exists and is not a regular file (``/dev/stderr``, a named pipe) is written directly;
    a missing folder of a regular file is created first (as pytest creates ``--junitxml``'s).
    A regular file the rename may not replace but the runner may write (another user's 0666 file in a
    sticky folder such as /tmp, where only a file's owner may rename over it) is written in place, as
    a shell's ``>`` would: whole, once the staged copy proved the data fits, and emptied if that fails.
    The runner's own redirected stdout or stderr is written through its descriptor; any other link is
    followed, so the rename replaces the file it leads to and the link stays.
    """
    if (number := own_descriptor(path)) is not None:
        _write_own(number, data)
        return
    if path.exists() and not path.is_file():  # /dev/stderr, /dev/null, a pipe: nothing to rename over
        write_special(path, data)
        return
    path = Path(os.path.realpath(path)) if path.is_symlink() else path
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, staged = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            _write_synced(out, data)
        os.chmod(staged, _permissions())
        try:
            os.replace(staged, path)
        except PermissionError:
            if not (path.is_file() and os.access(path, os.W_OK)):
                raise
            os.unlink(staged)
            _write_in_place(path, data)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def _write_in_place(target: Path, data: bytes) -> None:
    """Overwrite an existing regular file (no rename); a write that fails leaves it empty, never part-written."""
    flags = os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)  # never created: it exists
    handle = os.open(target, flags)
    with os.fdopen(handle, "wb") as out:
        try:
            _write_synced(out, data)
        except BaseException:
            with contextlib.suppress(OSError):
                out.truncate(0)
            raise


SPECIAL_WRITE_SECONDS = 30.0
"""How long a pipe or device may take nothing before its write is given up (its reader stalled)."""
AFTER_SIGNAL_SECONDS = 1.0
"""How long it may take nothing once SIGINT, SIGTERM or SIGHUP has arrived: the command ends soon after."""
_CHUNK = 1 << 16


def write_special(target: Path, data: bytes, *, seconds: float | None = None) -> None:
    """Write ``data`` to a file that is not a regular one (a device, the runner's own stdout), never blocking.

    Opened non-blocking: a named pipe without a reader (one that became a pipe after the paths were
    checked) fails at once, and one whose reader stops taking data is given up after ``seconds``
    without progress (:data:`SPECIAL_WRITE_SECONDS`), or :data:`AFTER_SIGNAL_SECONDS` once a signal
    arrived. Raises OSError naming what happened.
    """
    bound = SPECIAL_WRITE_SECONDS if seconds is None else seconds
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(target, flags)
    except OSError as error:
        if error.errno == errno.ENXIO:  # a named pipe that no process reads
            raise OSError(errno.ENXIO, "it is a named pipe (FIFO) that nothing reads") from None
        raise
    try:
        kind = special_file(target, own=(1, 2), status=os.fstat(handle))
        if kind is not None:  # it became one after the paths were checked: a reader may come and go
            raise OSError(errno.EINVAL, f"it is {kind}, which could block the command")
        view = memoryview(data)
        poller = select.poll()
        poller.register(handle, select.POLLOUT)
        waiting_since = time.monotonic()
        while view:
            state = signals.current()
            allowed = AFTER_SIGNAL_SECONDS if state is not None and state.interrupted else bound
            if time.monotonic() - waiting_since > allowed:
                raise OSError(errno.ETIMEDOUT, f"its reader took nothing for {allowed:g} s; given up")
            if not poller.poll(100):
                continue
            try:
                written = os.write(handle, view[:_CHUNK])
            except BlockingIOError:
                continue
            view = view[written:]
            waiting_since = time.monotonic()
    finally:
        os.close(handle)


def place(text: str, path: Path, stdout: IO[bytes] | None = None, *, append: bool = False) -> None:
    """Write one report's text, once: ``-`` to stdout, else whole or not at all (UTF-8; what the runner could not
    decode, a lone surrogate, as a backslash escape).

    ``append``: added at the end of the file (a blank line first when the file holds text), the file kept as it
    is (same inode), as a step summary that earlier steps wrote to must be.
    """
    data = text.encode("utf-8", "backslashreplace")
    if is_stdout(path):
        _write_own(1, data, stdout)
    elif append:
        append_to(path, data)
    else:
        write_atomically(path, data)


def _write_own(number: int, data: bytes, out: IO[bytes] | None = None) -> None:
    """Write ``data`` to the runner's stdout (1) or stderr (2), after what its text layer holds (``out``: in its
    stead)."""
    stream = sys.stdout if number == 1 else sys.stderr
    stream.flush()
    target = out or stream.buffer
    target.write(data)
    target.flush()


def append_to(path: Path, data: bytes) -> None:
    """Append ``data`` to a regular file (created when missing), a blank line first when it holds text."""
    if path.exists() and not path.is_file():
        write_special(path, data)
        return
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags, 0o666)
    with os.fdopen(handle, "ab") as out:
        _write_synced(out, b"\n" + data if os.fstat(out.fileno()).st_size else data)


def _write_synced(out: IO[bytes], data: bytes) -> None:
    """Write ``data`` and flush it to the disk."""
    out.write(data)
    out.flush()
    os.fsync(out.fileno())
