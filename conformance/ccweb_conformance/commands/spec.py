"""``ccweb-conformance spec``: the contract rendered as Markdown (printed, written or checked)."""

from __future__ import annotations

import argparse

from ccweb_conformance import kit_version
from ccweb_conformance.commands.document_files import check_destination, deliver
from ccweb_conformance.i18n import DEFAULT_LANGUAGE
from ccweb_conformance.options import add_arguments, resolve
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
    add_arguments(parser, "spec")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    options = resolve(vars(args))
    check_destination(options)
    language = options.lang or DEFAULT_LANGUAGE  # a document never follows the reader's locale
    text = render_spec(kit_version(), feature_scenarios(), language)
    return deliver(options, text, regenerate_command(language, str(options.check)))
