"""``ccweb-conformance spec``: the contract rendered as Markdown (printed, written or checked)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ccweb_conformance import kit_version
from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, UsageError
from ccweb_conformance.i18n import LANGUAGES
from ccweb_conformance.reports.living_spec import regenerate_command, render_spec
from ccweb_conformance.reports.output import write_atomically
from ccweb_conformance.suite.scenario_index import feature_scenarios

SPEC_EPILOG = """
examples:
  ccweb-conformance spec                          print the contract as Markdown
  ccweb-conformance spec --output docs/SPEC.md    write it to a file
  ccweb-conformance spec --check docs/SPEC.md     exit 1 if the file differs from a fresh render
  ccweb-conformance spec --lang zh-CN --output docs/SPEC.zh-CN.md    the same contract in Chinese

exit codes: 0 printed, written or up to date; 1 --check found a difference; 2 usage error.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``spec`` command's description, epilog and options."""
    parser.description = "Render the whole contract from the spec files and the features as Markdown."
    parser.epilog = SPEC_EPILOG
    destination = parser.add_mutually_exclusive_group()
    destination.add_argument("--output", metavar="FILE", type=Path, help="write the Markdown to FILE")
    destination.add_argument("--check", metavar="FILE", type=Path, help="exit 1 if FILE differs from a fresh render")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the document (default: en)")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    text = render_spec(kit_version(), feature_scenarios(), args.lang)
    if args.check is not None:
        if not args.check.is_file():
            raise UsageError(f"cannot check {str(args.check)!r}: no such file")
        if args.check.read_text(encoding="utf-8") != text:
            command = regenerate_command(args.lang, str(args.check))
            print(
                f"ccweb-conformance: {args.check} is out of date; run '{command}'",
                file=sys.stderr,
            )
            return EXIT_FAILED
        return EXIT_PASSED
    if args.output is not None:
        if not args.output.resolve().parent.is_dir():
            raise UsageError(f"cannot write {str(args.output)!r}: its folder does not exist")
        try:
            write_atomically(args.output, text.encode("utf-8"))
        except OSError as error:
            raise UsageError(f"cannot write {str(args.output)!r}: {error.strerror}") from error
        return EXIT_PASSED
    sys.stdout.write(text)
    return EXIT_PASSED
