"""``ccweb-conformance list``: the requirements and the scenarios that prove them; nothing is started."""

from __future__ import annotations

import argparse

from ccweb_conformance.commands.report_formats import write_reports
from ccweb_conformance.errors import EXIT_PASSED, EXIT_USAGE, UsageError
from ccweb_conformance.options import add_arguments, resolve
from ccweb_conformance.reports.listing import build_listing, render_listing
from ccweb_conformance.reports.output import is_stdout
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import select
from ccweb_conformance.values import resolve_values

EPILOG = """examples:
  ccweb-conformance list
  ccweb-conformance list --tags uni-1,AC-2
  ccweb-conformance list -k emoji --json -           the listing as JSON on stdout
  ccweb-conformance list --json listing.json        the JSON in a file, the text on stdout

--json FILE takes a path as 'run --json' does (- for stdout); --json alone, the old switch,
still prints the JSON on stdout, with a deprecation note on stderr.
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``list`` command's description, epilog and options."""
    parser.description = (
        "List every requirement (ID, level, statement, criterion) and the scenarios that prove it, "
        "without starting anything."
    )
    parser.epilog = EPILOG
    add_arguments(parser, "list")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance list``: requirements and their scenarios as text, and as JSON where ``--json`` says."""
    options = resolve(vars(args))
    chosen = select(feature_scenarios(), options.tags, options.keyword)
    if not chosen:
        raise UsageError("no scenario matched the selection")
    listing = build_listing(chosen, selected=bool(options.tags or options.keyword))
    reports = resolve_values(options).reports
    written = write_reports(listing, reports, "list", language="en")
    if not is_stdout(reports.path("json")):
        print(render_listing(listing, as_json=False))
    return EXIT_PASSED if written else EXIT_USAGE
