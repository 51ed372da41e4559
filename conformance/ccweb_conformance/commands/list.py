"""``ccweb-conformance list``: the requirements and the scenarios that prove them; nothing is started."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ccweb_conformance.commands.report_formats import write_reports
from ccweb_conformance.commands.tags import canonical_tags
from ccweb_conformance.engine.keyword import Matcher, keyword_matches
from ccweb_conformance.errors import EXIT_PASSED, EXIT_USAGE, UsageError
from ccweb_conformance.options import resolve
from ccweb_conformance.reports.listing import build_listing, render_listing
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.reports.output import is_stdout
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import check_keyword, pasted_scenarios, template_name
from ccweb_conformance.values import resolve_values


def _matcher(scenario: ScenarioRef) -> Matcher:
    words = [scenario.name, scenario.feature_file, *(t.lstrip("@") for t in scenario.tags)]
    names = frozenset(w.casefold() for w in words)
    return lambda name, /, **_: keyword_matches(name, names)


def select(scenarios: Sequence[ScenarioRef], tags: str | None, keyword: str | None) -> list[ScenarioRef]:
    """The scenarios a ``--tags`` / ``-k`` selection keeps (``-k`` matched on name, file and tags)."""
    kept = list(scenarios)
    if tags:
        wanted = set(canonical_tags(tags, scenarios).split(","))
        kept = [s for s in kept if wanted & {t.lstrip("@") for t in s.tags}]
    if keyword:
        pasted = pasted_scenarios(keyword, scenarios)
        if pasted is not None:  # what --co printed, pasted back: those scenarios (an example: its outline)
            templates = {template_name(name) for name in pasted}
            return [s for s in kept if f"{s.feature_file}::{s.name}" in templates]
        expression = check_keyword(keyword)
        kept = [s for s in kept if expression.evaluate(_matcher(s))]
    return kept


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``list`` command's description."""
    parser.description = (
        "List every requirement (ID, level, statement, criterion) and the scenarios that prove it, "
        "without starting anything."
    )


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
        print(render_listing(listing))
    return EXIT_PASSED if written else EXIT_USAGE
