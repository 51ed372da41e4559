"""``ccweb-conformance spec``: the contract rendered as Markdown (printed, written or checked)."""

from __future__ import annotations

import argparse

from ccweb_conformance import kit_version
from ccweb_conformance.commands.document_files import check_destination, deliver
from ccweb_conformance.i18n import DEFAULT_LANGUAGE
from ccweb_conformance.options import resolve
from ccweb_conformance.reports.living_spec import regenerate_command, render_spec
from ccweb_conformance.suite.scenario_index import feature_scenarios


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``spec`` command's description."""
    parser.description = "Render the whole contract from the spec files and the features as Markdown."


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    options = resolve(vars(args))
    check_destination(options)
    language = options.lang or DEFAULT_LANGUAGE  # a document never follows the reader's locale
    text = render_spec(kit_version(), feature_scenarios(), language)
    return deliver(options, text, regenerate_command(language, str(options.check)))
