"""``ccweb-conformance list``: the requirements and the scenarios that prove them; nothing is started."""

from __future__ import annotations

import argparse

from ccweb_conformance.errors import EXIT_PASSED, UsageError
from ccweb_conformance.options import add_arguments
from ccweb_conformance.reports.listing import build_listing, render_listing
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import select

EPILOG = """examples:
  ccweb-conformance list
  ccweb-conformance list --tags uni-1,AC-2
  ccweb-conformance list -k emoji --json"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``list`` command's description, epilog and options."""
    parser.description = (
        "List every requirement (ID, level, statement, criterion) and the scenarios that prove it, "
        "without starting anything."
    )
    parser.epilog = EPILOG
    add_arguments(parser, "list")
    parser.add_argument("--json", dest="as_json", action="store_true", help="print JSON instead of text")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance list``: requirements and their scenarios; nothing is started."""
    scenarios = feature_scenarios()
    chosen = select(scenarios, args.tags, args.keyword)
    if not chosen:
        raise UsageError("no scenario matched the selection")
    listing = build_listing(chosen, selected=bool(args.tags or args.keyword))
    print(render_listing(listing, as_json=args.as_json))
    return EXIT_PASSED
