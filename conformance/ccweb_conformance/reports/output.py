"""Where reports go: a file, written whole or not at all, or stdout for ``-``; secrets never written.

A report is rendered into a staging folder, its server text neutralised (:mod:`ccweb_conformance.reports.neutral`),
scrubbed of secrets, then written to a temporary
file beside its target (same folder, so the same file system) and renamed over the target:
a reader (a later CI step, ``if: always()``) sees the whole report or none, and a write that
fails (a full disk) leaves no partial file behind.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from ccweb_conformance.options import REDACTED, STDOUT
from ccweb_conformance.reports.neutral import defuse_lines, neutral

__all__ = ["REDACTED", "STDOUT", "emit", "is_stdout", "reader_may_leave", "scrub", "write_atomically"]

Document = TypeVar("Document")


def is_stdout(path: Path | str | None) -> bool:
    """Whether a report path means stdout."""
    return path is not None and str(path) == STDOUT


def scrub(text: str, secrets: Iterable[str]) -> str:
    """The text with every secret replaced by ``***``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED)
    return text


@contextlib.contextmanager
def reader_may_leave(stream: IO[str]) -> Iterator[None]:
    """Console output whose reader may stop reading (``| head``): what it did not read is dropped, quietly.

    The verdict does not depend on who reads the console: the reports are written before it,
    and the exit code stays the run's (a passed run cut short by ``| head`` still exits 0).
    """
    try:
        yield
        stream.flush()
    except BrokenPipeError:
        nowhere = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(nowhere, stream.fileno())  # Python's final flush of the buffered rest goes nowhere, silently
        finally:
            os.close(nowhere)


def _permissions() -> int:
    """The mode a new file gets from the process's umask (0o644 under the usual 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it over ``path``; nothing left on failure.

    A target that exists and is not a regular file (``/dev/stderr``, a named pipe) is written directly.
    """
    target = Path(path)
    if target.exists() and not target.is_file():  # /dev/stderr, a named pipe: nothing to rename over
        target.write_bytes(data)
        return
    handle, staged = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(staged, _permissions())
        os.replace(staged, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise


def emit(
    write: Callable[[Document, Path], None],
    document: Document,
    path: Path,
    secrets: Iterable[str] = (),
    stdout: IO[bytes] | None = None,
) -> None:
    """Write one report with its writer, scrubbed of secrets, server text neutralised; ``-`` sends it to stdout."""
    with tempfile.TemporaryDirectory(prefix="ccweb-conformance-report-") as folder:
        staged = Path(folder) / "report"
        write(neutral(document), staged)
        data = defuse_lines(staged.read_bytes().decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            data = data.replace(secret.encode("utf-8"), REDACTED.encode())
    if is_stdout(path):
        out = stdout or sys.stdout.buffer
        out.write(data)
        out.flush()
    else:
        write_atomically(Path(path), data)
