"""``ccweb-conformance check-description``: try one tool description against the facts of D-11.

Prints each fact found (with the clause that states it) or missing (with the closest clause,
what it lacks and what contradicts it), in English or Chinese; exit 0 when every fact is
stated, 1 when one is not, 2 for a usage error. It imports only the description check, so it
answers in a fraction of a second (``cli`` imports nothing else for it).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from ccweb_conformance.checks.description_check import FactVerdict, check_description, quote
from ccweb_conformance.commands import help_text
from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, UsageError
from ccweb_conformance.i18n import Messages, messages, pick_language
from ccweb_conformance.options import special_file

__all__ = ["COMMAND", "configure", "main"]

COMMAND: Final = "check-description"
_STDIN = "-"
MAX_DESCRIPTION_BYTES = 1 << 20
"""The most a description may take (1 MiB; a tool description is a few hundred characters)."""


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description and its one argument of its own: TEXT or ``-`` (``--file`` and ``--lang`` are rows
    of the option table)."""
    parser.description = help_text("check-description-about")
    parser.add_argument("text", nargs="?", metavar="TEXT", help="the description, or - to read it from stdin")


def main(args: argparse.Namespace) -> int:
    """Check the description ``args`` name and print the verdicts; the exit code."""
    say = messages(pick_language(args.lang))
    verdicts = check_description(_text(args, say))
    for verdict in verdicts:
        print("\n".join(_lines(verdict, say)))
    found = sum(v.holds for v in verdicts)
    print(say("description.summary", found=found, total=len(verdicts)))
    return EXIT_PASSED if found == len(verdicts) else EXIT_FAILED


def _read_file(path: Path) -> bytes:
    """At most MAX_DESCRIPTION_BYTES + 1 bytes of ``path``; a named pipe or socket is refused, never waited on.

    Opened non-blocking (a named pipe without a writer would block the open for ever), then
    checked: only the runner's own stdin (``--file /dev/stdin``) may be a pipe.
    """
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(handle, "rb") as stream:
        kind = special_file(path, own=(0,), status=os.fstat(handle))
        if kind is not None:
            reason = f"it is {kind}, which could block the command; name a regular file, or - for stdin"
            raise OSError(errno.EINVAL, reason)
        os.set_blocking(handle, True)
        return stream.read(MAX_DESCRIPTION_BYTES + 1)


def _text(args: argparse.Namespace, say: Messages) -> str:
    """The description from TEXT, stdin or ``--file``; a usage error when none or two are given."""
    if args.text is not None and args.file is not None:
        raise UsageError(say("description.two_texts"))
    if args.file is not None:
        return _decode(lambda: _read_file(args.file), str(args.file), say)
    if args.text == _STDIN:
        return _decode(lambda: sys.stdin.buffer.read(MAX_DESCRIPTION_BYTES + 1), "stdin", say)
    if args.text is None:
        raise UsageError(say("description.no_text"))
    return str(args.text)


def _decode(read: Callable[[], bytes], source: str, say: Messages) -> str:
    """The text ``read`` returns: at most MAX_DESCRIPTION_BYTES of UTF-8 (``/dev/urandom`` never ends)."""
    try:
        data = read()
        if len(data) > MAX_DESCRIPTION_BYTES:
            raise UsageError(say("description.too_large", source=source, limit=MAX_DESCRIPTION_BYTES))
        return data.decode("utf-8")
    except OSError as error:
        raise UsageError(say("description.unreadable", source=source, reason=error.strerror or error)) from error
    except UnicodeDecodeError as error:
        raise UsageError(say("description.unreadable", source=source, reason=f"not UTF-8 ({error.reason})")) from error


def _lines(verdict: FactVerdict, say: Messages) -> list[str]:
    """A verdict as lines: the fact, then the clause, or what the closest clause lacks and contradicts."""
    chinese = say.chinese
    fact = (verdict.name_zh if chinese else "") or verdict.name
    if verdict.holds:
        return [say("description.found", fact=fact), say("description.clause", clause=quote(verdict.closest or ""))]
    missing = verdict.missing_zh if chinese and verdict.missing_zh else verdict.missing
    separator = "、" if chinese else ", "
    lines = [say("description.missing", fact=fact)]
    if verdict.closest is None:
        return [*lines, say("description.nowhere", concepts=separator.join(missing))]
    lines.append(say("description.closest", clause=quote(verdict.closest)))
    if missing:
        lines.append(say("description.lacks", concepts=separator.join(missing)))
    if verdict.contradicted_by is not None:
        kind = (verdict.contradiction_zh if chinese else verdict.contradiction) or ""
        lines.append(say("description.contradicted", text=verdict.contradicted_by, kind=kind))
    return lines
