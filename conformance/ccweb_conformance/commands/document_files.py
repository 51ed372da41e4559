"""``--output FILE`` / ``--check FILE`` of the commands that render a document (``spec``, ``export``).

Both options are rows of the option table (``options.RunnerOptions.output`` and ``check``: at most one).

Both paths are checked before the document is rendered (rendering ``export`` runs the whole
suite), the file is written whole or not at all, and ``--check`` compares the file's text with a fresh render.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, UsageError
from ccweb_conformance.options import RunnerOptions, write_target_problem
from ccweb_conformance.reports.output import write_atomically

__all__ = ["check_destination", "deliver", "out_of_date", "write_file"]


def check_destination(args: RunnerOptions) -> None:
    """A usage error for a path that cannot serve, before anything is rendered."""
    if args.check is not None and not args.check.is_file():
        raise UsageError(f"cannot check {str(args.check)!r}: no such file")
    problem = None if args.output is None else write_target_problem(args.output)
    if problem is not None:
        raise UsageError(problem)


def deliver(args: RunnerOptions, text: str, regenerate: str) -> int:
    """Compare with ``--check`` (``regenerate``: the command that brings the file up to date), write, or print."""
    if args.check is not None:
        try:
            current = args.check.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise UsageError(f"cannot check {str(args.check)!r}: {error.strerror}") from error
        return out_of_date(args.check, regenerate) if current != text else EXIT_PASSED
    if args.output is not None:
        write_file(args.output, text.encode("utf-8"))
        return EXIT_PASSED
    sys.stdout.write(text)
    return EXIT_PASSED


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` whole at ``path``; a usage error naming it when that fails."""
    try:
        write_atomically(path, data)
    except OSError as error:
        raise UsageError(f"cannot write {str(path)!r}: {error.strerror}") from error


def out_of_date(path: Path, regenerate: str) -> int:
    """Say that ``path`` differs from a fresh render, and the command that brings it up to date; EXIT_FAILED."""
    print(f"ccweb-conformance: {path} is out of date; run '{regenerate}'", file=sys.stderr)
    return EXIT_FAILED
