"""The run of ``ccweb-conformance run`` once its options are valid: the suite, the fuzz phase, each failure rerun
alone, the reports."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.commands import heap, last_failed
from ccweb_conformance.commands.frame import Frame
from ccweb_conformance.commands.report_formats import requested
from ccweb_conformance.commands.rerun_alone import rerun_failures
from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.errors import EXIT_USAGE, EnvironmentFault, RunInterrupted, UsageError
from ccweb_conformance.i18n import messages
from ccweb_conformance.options import redact
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.failure_block import reports_line
from ccweb_conformance.reports.github import annotation_lines, in_github_actions
from ccweb_conformance.reports.hints import startup_line
from ccweb_conformance.reports.live import LiveCounter
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.neutral import neutral, neutralise
from ccweb_conformance.reports.terminal import colour_wanted, tell
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.engine_session import run_suite
from ccweb_conformance.suite.expected_failures import Staleness, load_expected_failures
from ccweb_conformance.transport import census, signals
from ccweb_conformance.transport.limits import process_limit_problem
from ccweb_conformance.values import RunValues


def _as_expected(scenario: ScenarioResult, expected_failures: Path | None) -> ScenarioResult:
    """A failed fuzz phase is an expected failure when every requirement it is charged to has an entry in the
    expected-failures file, as a scenario's failure would be (a known UTF-16 bug shows in the phase too); the
    phase ran all its cases past such differences, so it fails on any other."""
    if scenario.status != "failed" or expected_failures is None:
        return scenario
    entry = load_expected_failures(expected_failures).entry_for(scenario.nodeid, scenario.failed_requirements())
    if entry is not None:
        scenario.status = "xfailed"
        scenario.expected_failure_reason = entry.reason
    return scenario


def _staleness(expected_failures: Path | None, state: signals.InterruptState, run: RunResult) -> Staleness | None:
    """The expected-failures entries that covered nothing (None without a file or after an interrupt); the
    stale ones the run judged fail it (``run.stale_expected_failures``)."""
    if expected_failures is None or state.interrupted:
        return None
    complete = run.selection is None and run.stopped is None
    staleness = load_expected_failures(expected_failures).stale(run.scenarios, complete=complete)
    run.stale_expected_failures = list(staleness.errors)
    return staleness


def _fuzz_after_scenarios(
    frame: Frame, values: RunValues, collector: ResultCollector | None, scenarios: list[ScenarioResult], started: float
) -> list[str]:
    """Differential fuzzing after the scenarios, unless the run was interrupted or stopped, within what is left of
    --max-time, in the run's workspace: appends its scenario, returns its lines."""
    from ccweb_conformance.fuzz.settings import settings_for  # noqa: PLC0415 (no Hypothesis in it)

    left = values.max_time - (time.perf_counter() - started)
    stopped = collector is None or collector.stop_reason is not None
    settings = settings_for(values.fuzz, values.selection)
    if settings is None or frame.state.interrupted or stopped or left <= 0:
        return []  # a run that fuzzes nothing never imports Hypothesis
    expected_failures = values.selection.expected_failures
    try:
        try:
            # a signal cuts no import short; no collection while it loads; what it made (and the suite's objects)
            # frozen before the collector is back on (Hypothesis collects garbage on first use: over none of them)
            with signals.shielded(), heap.importing(freeze=True):
                from ccweb_conformance.fuzz import phase, report  # noqa: PLC0415 (Hypothesis, only when fuzzing)
        except ImportError as error:
            raise UsageError(
                f"fuzzing needs the package hypothesis ({error}); install it with pip, or pass --fuzz 0"
            ) from None
        if left < settings.bound:  # --max-time leaves less: reaching it fails the phase as incomplete
            settings = dataclasses.replace(settings, time_limit=left)
        counter = LiveCounter("fuzz calls", live=sys.stderr.isatty())  # the phase's calls, counted as scenarios are
        counter.restart(settings.sweep_total + settings.count)
        try:
            tolerated = (
                frozenset() if expected_failures is None else load_expected_failures(expected_failures).requirements
            )
            run = phase.run_fuzz(
                values.target,
                settings,
                frame.context,
                tolerated=tolerated,
                progress=counter.update,
                workspace=frame.session.workspace(values.target.sessions_dir),
            )
        finally:
            counter.finish()
        if run.mismatch is not None or run.error is not None:
            fault = process_limit_problem(RuntimeError(run.error or ""), exhausted=frame.context.exhausted)
            if fault is not None:  # a server that could not start a thread at the user's process limit: not its fault
                raise EnvironmentFault(fault)
        scenarios.append(_as_expected(report.fuzz_scenario(run), expected_failures))
        return report.fuzz_console_lines(run, verbose=values.verbose, language=frame.language)
    except RunInterrupted:
        return [messages(frame.language)("fuzz.interrupted")]


def _target_facts(collector: ResultCollector | None) -> dict[str, Any]:
    """What the suite learnt of the target, for the run model (the defaults when it never started)."""
    if collector is None:
        return {"target": "not started", "transport": "stdio", "started_at": ""}
    return {
        "target": collector.target_description,
        "transport": collector.transport,
        "protocol_version": collector.protocol_version,
        "started_at": collector.started_at,
        "stopped": collector.stop_reason,
        "eras": collector.eras,
        "one_era_reason": collector.one_era_reason,
        "bundled_reference": collector.bundled_reference,
    }


def _run_result(
    frame: Frame,
    values: RunValues,
    collector: ResultCollector | None,
    scenarios: list[ScenarioResult],
    chosen: last_failed.LastFailed | None,
    *,
    started: float,
    config_file: str | None,
) -> RunResult:
    """The run model of what happened, with what the sweep found and every scenario's reproducer."""
    leftovers = frame.session.sweep()
    expected = values.selection.expected_failures
    run = RunResult(
        kit_version=kit_version(),
        spec_version=ccweb_spec.contract_version(),
        duration_s=time.perf_counter() - started,
        scenarios=scenarios,
        strict=values.selection.strict,
        selection=last_failed.selection_label(values.selection, chosen),
        interrupted=frame.state.name,
        leftover_processes=[leftover.describe() for leftover in leftovers],
        processes=census.summary(frame.context.processes.started()),
        waits=frame.context.waits.totals(),
        config_file=config_file,
        expected_failures_file=None if expected is None else str(expected),
        **_target_facts(collector),
    )
    # each failure's command that reruns it alone against the same target (``-k`` selecting it), secrets redacted
    # (``--header`` and ``--env`` values shown as ``***``, the names to supply again said after it)
    for scenario in run.scenarios:
        if scenario.status in ("failed", "warning") and scenario.keyword is not None:
            scenario.reproducer = values.target.rerun_line("-k", scenario.keyword)
    return run


def _summary(frame: Frame, run: RunResult, fuzz_lines: list[str], safe: RunResult, *, verbose: bool) -> None:
    """On GitHub Actions the annotations, then the console summary (the fuzz phase's lines and where the reports
    are before the totals), wrapped to a terminal's width: the totals line is the log's last line everywhere.
    ``safe``: the run with server text neutralised (:func:`neutral`), made once for the reports and the summary."""
    reports: list[Path | str] = [path for _, path in requested(frame.reports, "run")]
    closing = [reports_line(reports, frame.language)] if run.failed or run.counts()["warning"] else []
    summary = render_summary(
        run,
        color=colour_wanted(frame.console, os.environ),
        verbose=verbose,
        language=frame.language,
        before_totals=[*fuzz_lines, *closing],
        safe=safe,
    )
    # on GitHub Actions, the failed requirements as workflow commands (printed as they are, never defused)
    annotations = annotation_lines(run, language=frame.language) if in_github_actions() else []
    if annotations:
        frame.show("\n".join(annotations))
    frame.show(summary, fit=True)


def run(
    frame: Frame,
    values: RunValues,
    features: list[FeatureScenario],
    chosen: last_failed.LastFailed | None = None,
    *,
    config_file: str | None = None,
) -> int:
    """The suite, the fuzz phase, the failures rerun alone, the run model, the records, the reports, the console,
    the exit code."""
    state = frame.state
    started = time.perf_counter()
    workspace = frame.session.workspace(values.target.sessions_dir)  # the suite's and fuzz phase's
    if values.target.is_bundled_reference:  # the bundled reference's imports, while the features are read
        frame.context.fork_server.start_in_background()
    collector: ResultCollector | None = None  # stays None when a signal comes before the run began
    with contextlib.suppress(RunInterrupted):
        only = chosen.names if chosen else ()
        collector = run_suite(
            values, live=sys.stderr.isatty(), context=frame.context, only=only, workspace=workspace, features=features
        )
    if not state.interrupted and collector is not None and collector.startup_error is not None:  # it never started
        line = startup_line(collector.startup_error, frame.language)
        tell(f"ccweb-conformance: error: {neutralise(redact(line, frame.secrets))}")
        return EXIT_USAGE
    scenarios = list(collector.results) if collector is not None else []
    fuzz_lines = _fuzz_after_scenarios(frame, values, collector, scenarios, started)
    if not values.selection.no_rerun and collector is not None and not state.interrupted:  # each failure alone
        rerun_failures(
            values,
            scenarios,
            workspace,
            frame.context,
            left=lambda: values.max_time - (time.perf_counter() - started),
            suite=lambda alone, part: run_suite(
                alone, live=False, workspace=part, quiet=True, context=frame.context, features=features
            ),
        )
    frame.settle()  # from here on a signal is recorded, and the reports still get written
    made = _run_result(frame, values, collector, scenarios, chosen, started=started, config_file=config_file)
    result = frame.redacted(made)
    fuzz_lines = [redact(line, frame.secrets) for line in fuzz_lines]  # the phase's own lines: its server's text
    if not result.scenarios and not state.interrupted:
        print("ccweb-conformance: error: no scenario matched the selection", file=sys.stderr)
        return EXIT_USAGE
    staleness = _staleness(values.selection.expected_failures, state, result)
    not_recorded = last_failed.update(values.target, result)
    if not_recorded is not None:
        tell(f"ccweb-conformance: warning: {not_recorded}")
    safe = neutral(result)  # one walk of the whole run (its transcripts) for every report and the summary
    written = frame.write_reports(result, safe=safe)
    if staleness is not None:  # entries that covered nothing, before the summary: its totals line is the last shown
        for line in staleness.warnings:
            tell(f"ccweb-conformance: warning: {line}")
        for line in staleness.errors:  # those that fail the run
            tell(f"ccweb-conformance: error: {line}")
    _summary(frame, result, fuzz_lines, safe, verbose=values.verbose)
    # Lines on stderr (errors, warnings, the interrupt) stay English in every language: they are
    # stable messages that scripts and CI logs grep for; the console summary above is translated.
    return frame.exit_code(
        failed=result.failed, written=written, detail=f"{result.counts()['notrun']} scenarios not run"
    )
