"""``ccweb-conformance spec``: the contract rendered as Markdown (printed, written or checked)."""

from __future__ import annotations

import argparse

from ccweb_conformance import kit_version
from ccweb_conformance.commands.document_files import add_destination, check_destination, deliver
from ccweb_conformance.i18n import LANGUAGES
from ccweb_conformance.reports.living_spec import regenerate_command, render_spec
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
    add_destination(parser, "write the Markdown to FILE", "exit 1 if FILE differs from a fresh render")
    parser.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the document (default: en)")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    check_destination(args)
    text = render_spec(kit_version(), feature_scenarios(), args.lang)
    return deliver(args, text, regenerate_command(args.lang, str(args.check)))
