"""``ccweb-conformance export``: the suite's cases as language-neutral JSON for a team's own test runner."""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from pathlib import Path

from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, RunnerError, UsageError

EPILOG = """
The cases come from the features, recorded against the bundled reference (the oracle): the
same data as 'run', never kept by hand. Function-level cases replay without MCP against a
function (sessionsDir, sourceId, args) => result; MCP-level scenarios are listed with the
reason each needs 'ccweb-conformance run'. docs/CASES.md tells a harness how to run them.

examples:
  ccweb-conformance export --output cases.json
  ccweb-conformance export --check examples/node-server/test/cases.json   (exit 1 when it drifted)
  ccweb-conformance export | jq '.counts'
"""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's description, epilog and options."""
    parser.description = (
        "Write the suite's cases as language-neutral JSON: function-level cases a harness replays "
        "without MCP, and the MCP-level scenarios left to 'run'."
    )
    parser.epilog = EPILOG
    destination = parser.add_mutually_exclusive_group()
    destination.add_argument("--output", metavar="FILE", type=Path, help="write the document to FILE (default: stdout)")
    destination.add_argument("--check", metavar="FILE", type=Path, help="exit 1 if FILE differs from a fresh export")


def render() -> str:
    """The export document as JSON text: two-space indent, raw UTF-8, lone surrogates escaped."""
    import json  # noqa: PLC0415 (start-up: nothing heavy is imported before the command runs)

    from ccweb_conformance.reports.case_export import export_document  # noqa: PLC0415
    from ccweb_conformance.suite.export import record_cases  # noqa: PLC0415

    text = json.dumps(export_document(record_cases()), ensure_ascii=False, indent=2) + "\n"
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def main(args: argparse.Namespace) -> int:
    """Write, print or check the export."""
    if args.check is not None and not args.check.is_file():
        raise UsageError(f"cannot check {str(args.check)!r}: no such file")
    if args.output is not None and not args.output.resolve().parent.is_dir():
        raise UsageError(f"cannot write {str(args.output)!r}: its folder does not exist")
    try:
        text = render()
    except RunnerError as error:
        print(f"ccweb-conformance: error: {error}", file=sys.stderr)
        return EXIT_FAILED
    if args.check is not None:
        if args.check.read_text(encoding="utf-8") != text:
            print(f"ccweb-conformance: {args.check} is out of date; run "
                  f"'ccweb-conformance export --output {args.check}'", file=sys.stderr)
            return EXIT_FAILED
        return EXIT_PASSED
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_PASSED
    _write_atomically(args.output, text)
    return EXIT_PASSED


def _write_atomically(path: Path, text: str) -> None:
    """A reader sees the whole document or the old one, never a part."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.resolve().parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"cannot write {str(path)!r}: {error.strerror}") from error
