"""Where reports go: a file, or stdout for ``-``; secrets (header and env values) never written, server
text neutralised (:mod:`ccweb_conformance.reports.neutral`)."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from ccweb_conformance.reports.model import RunResult
from ccweb_conformance.reports.neutral import defuse_lines, neutral

__all__ = ["REDACTED", "STDOUT", "emit", "is_stdout", "scrub"]

STDOUT = "-"
REDACTED = "***"


def is_stdout(path: Path | str | None) -> bool:
    """Whether a report path means stdout."""
    return path is not None and str(path) == STDOUT


def scrub(text: str, secrets: Iterable[str]) -> str:
    """The text with every secret replaced by ``***``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def emit(
    write: Callable[[RunResult, Path], None],
    run: RunResult,
    path: Path,
    secrets: Iterable[str] = (),
    stdout: IO[bytes] | None = None,
) -> None:
    """Write one report with its writer, scrubbed of secrets, server text neutralised; ``-`` sends it to stdout."""
    with tempfile.TemporaryDirectory(prefix="ccweb-conformance-report-") as folder:
        staged = Path(folder) / "report"
        write(neutral(run), staged)
        data = defuse_lines(staged.read_bytes().decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            data = data.replace(secret.encode("utf-8"), REDACTED.encode())
    if is_stdout(path):
        out = stdout or sys.stdout.buffer
        out.write(data)
        out.flush()
    else:
        Path(path).write_bytes(data)
