"""``ccweb-conformance run``: every scenario against an implementation, then the fuzz phase and the reports.

This module is what the command line imports: it validates the options and says at once what is
being started; the run itself (the engine, the servers, the reports) is in :mod:`.running`, imported
after that first line (its imports take seconds on a loaded machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

import ccweb_spec
from ccweb_conformance.commands import heap, help_text, last_failed
from ccweb_conformance.commands.tags import canonical_tags
from ccweb_conformance.options import RunnerOptions, redact, resolve
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.reports.terminal import fit_to_terminal
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.scenario_index import bundled_features, feature_scenarios
from ccweb_conformance.suite.selection import check_keyword, options_selection, pasted_scenarios
from ccweb_conformance.values import RunValues, resolve_values


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``run`` command's description and epilog (its sessions variable named)."""
    parser.description = "Run every scenario of the features against an implementation and report per requirement."
    parser.epilog = help_text("run").replace("$SESSIONS_ENV", "$" + ccweb_spec.binding().sessions_dir_env)


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``: valid options, the first line at once, then the run (:mod:`.running`)."""
    with heap.importing(freeze=True):  # parsed once, passed on: it lives as long as the run, walked by no collection
        features = bundled_features()
    scenarios = feature_scenarios(features)
    values = resolve_values(_options(args, scenarios))
    chosen = last_failed.choose(values.selection, values.target, scenarios)
    if chosen is not None and chosen.names and values.fuzz.count is None:  # a narrow run: fuzz only when asked
        values = dataclasses.replace(values, fuzz=dataclasses.replace(values.fuzz, count=0))
    collecting = values.selection.collect_only
    if not collecting:
        from ccweb_conformance.transport import limits  # noqa: PLC0415 (light: the os and resource modules)

        limits.ensure_descriptors()  # a limit the run cannot live with is its one line, before anything is said
        # on stderr, terminal or log alike: what starts, before seconds of imports
        selection = last_failed.selection_label(values.selection, chosen)
        line = f"ccweb-conformance: {redact(starting_line(values, selection), values.target.secrets)}"
        print(fit_to_terminal(line, sys.stderr), file=sys.stderr, flush=True)
    if chosen is not None:
        print(f"ccweb-conformance: {chosen.note}", file=sys.stderr)
    # the engine, the transports and the reports: imported after the first line, with no collection meanwhile, and
    # frozen before the collector is back on (the command runs in the frozen block cli.py's dispatch holds), so no
    # collection of the run walks them
    with heap.importing(freeze=True):
        from ccweb_conformance.commands.collect_only import collect_only  # noqa: PLC0415
        from ccweb_conformance.commands.frame import framed  # noqa: PLC0415
        from ccweb_conformance.commands.running import run  # noqa: PLC0415
        from ccweb_conformance.suite import steps  # noqa: PLC0415

        steps.load()  # every step module, before the run holds a descriptor of its own (workspace, servers)

    if collecting:
        return collect_only(values, chosen, features)
    return framed(
        "run",
        values,
        lambda frame: run(frame, values, features, chosen, config_file=getattr(args, "config_file", None)),
        interrupted_detail="nothing was reported",
        report_leftovers=False,
    )


def _options(args: argparse.Namespace, scenarios: list[ScenarioRef]) -> RunnerOptions:
    options = resolve(vars(args))
    if options.tags:
        options = dataclasses.replace(options, tags=canonical_tags(options.tags, scenarios))
    pasted = pasted_scenarios(options.keyword, scenarios) if options.keyword else None
    if pasted is not None:  # --co's lines pasted back: named as --co names them (requirement column dropped)
        options = dataclasses.replace(options, keyword="\n".join(sorted(pasted)))
    elif options.keyword:
        check_keyword(options.keyword)  # bounded, one line, before the run reads it
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    return options


def starting_line(values: RunValues, selection: str | None = None) -> str:
    """What a run starts, said at once (collecting the scenarios and starting the server take seconds).

    On stderr, in English as every line there (stdout's first line stays the verdict), on a terminal and
    in a CI log alike: a start-up fault follows it as a second line.
    """
    selection = selection or options_selection(values.selection)
    chosen = f" (selection: {selection})" if selection else ""
    fuzz = "" if values.fuzz.count == 0 or selection else ", then the fuzz phase"
    scenarios = f"the scenarios of ccweb_list_user_inputs {ccweb_spec.contract_version()}"
    return f"testing {values.target.described()}{chosen}: {scenarios}{fuzz}"


