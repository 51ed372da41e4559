"""``ccweb-conformance run``: every scenario against an implementation, then the fuzz phase and the reports."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.checks import waits
from ccweb_conformance.commands import last_failed
from ccweb_conformance.commands.collect_only import collect_only
from ccweb_conformance.commands.frame import Frame, framed
from ccweb_conformance.commands.report_formats import requested
from ccweb_conformance.errors import EXIT_USAGE, RunInterrupted, UsageError
from ccweb_conformance.i18n import DEFAULT_LANGUAGE, messages
from ccweb_conformance.options import RunnerOptions, add_arguments, command_line, resolve
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.failure_block import reports_line
from ccweb_conformance.reports.github import annotation_lines, in_github_actions
from ccweb_conformance.reports.hints import startup_line
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.neutral import neutralise
from ccweb_conformance.reports.output import scrub
from ccweb_conformance.reports.terminal import colour_wanted
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.expected_failures import Staleness, load_expected_failures
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import canonical_tags, check_keyword
from ccweb_conformance.suite.session import SuiteOutcome, run_suite, selection_label
from ccweb_conformance.transport import census, signals, zygote_client

RUN_EPILOG = """
targets (choose one; none means the bundled reference server over stdio):
  --stdio "CMD ARGS"                    spawn CMD, talk MCP over its stdin/stdout
  --http-cmd "CMD --port {port}" --url http://127.0.0.1:{port}/mcp
                                        spawn CMD, talk Streamable HTTP to URL
  --url URL --sessions-dir DIR          a server that is already running and reads DIR

The runner writes conversation files (cc-web session JSON) into the sessions directory:
its own temporary one, passed to spawned servers as $SESSIONS_ENV and {sessions_dir},
or DIR for --url, where it only creates files <run prefix>-...json (UUIDs whose first
12 hex digits are new in every run) and removes them after.

examples:
  ccweb-conformance run
  ccweb-conformance run --stdio "node lib/mcp-server.js"
  ccweb-conformance run --stdio "node server.js" --junitxml junit.xml --markdown summary.md
  ccweb-conformance run --http-cmd "ccweb-reference --http --port {port} --sessions-dir {sessions_dir}" \\
      --url "http://127.0.0.1:{port}/mcp"
  ccweb-conformance run --stdio "node server.js" --expected-failures known-gaps.yaml
  ccweb-conformance run --tags AC-7,SRC-1 -v
  ccweb-conformance run --stdio "node server.js" --lf -x    (rerun what failed last time, stop at the first failure)
  ccweb-conformance run --url https://host/mcp --sessions-dir DIR --header "Authorization: Bearer $TOKEN"
  ccweb-conformance run --stdio "node server.js" --sessions-dir ./my-sessions --env LOG_LEVEL=debug
  ccweb-conformance run --json - | jq .counts       (a report path of - is stdout; the summary goes to stderr)

--sessions-dir also works with --stdio and --http-cmd: the spawned server is given your
directory (one your own service owns) and the runner only adds and removes its own
<run prefix>-...json files.

config file: ccweb-conformance.toml, or [tool.ccweb-conformance] in pyproject.toml, in the
current directory; keys are the long option names, as the GitHub Action's inputs are named
(stdio = "node server.js", header = [...], keyword = "emoji" for -k); the command line wins.
The file in use and the --expected-failures file are named in every report (JSON configFile /
expectedFailuresFile, JUnit properties, Markdown, console). At most
1 MiB of either file is read; a pyproject.toml that names no ccweb-conformance table is not read.

The run's own pytest session reads no pytest configuration but the kit's: PYTEST_ADDOPTS,
PYTEST_PLUGINS, PYTEST_DEBUG and the other PYTEST_* settings, pytest.ini / pyproject.toml /
tox.ini / setup.cfg and conftest.py are ignored, and installed plugins are never auto-loaded
(as with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, whatever it says). Select with --tags / -k only;
a run with a selection is never reported as a full pass ("PASSED (selection: ...)").

bounds (a CI gate always ends, and leaves no process and no file of the run behind):
  --timeout S             per request, partial lines and SSE streams included (default 10)
  --max-message-bytes N   one incoming message, over stdio, JSON or SSE (default 16 MiB)
  --max-time S            the whole run; scenarios left are not run, exit 1 (default 1800)
  --stop-after N          after N scenarios in a row in which the server died or timed out,
                          the rest is not run: "the implementation stopped answering" (default 3)
  Processes a server leaves behind (a daemon that called setsid) are stopped and named.
  A report path that is a named pipe, a socket or a folder is refused before the run; a device
  or the runner's own stdout whose reader takes nothing for 30 s (1 s after a signal) is given up.

exit codes: 0 every required scenario passed (expected failures allowed); 1 a scenario
failed or was not run (--max-time, the implementation stopped answering), an expected
failure passed, or the server broke the protocol (also during the handshake: PROTO-1
fails); 2 usage error, the implementation could not be started, exited or never answered,
a report could not be written, or the runner's own machine failed it (its working directory
removed, a full disk, no descriptor or thread left: one line that says so); 130 / 143 / 129
interrupted by SIGINT / SIGTERM / SIGHUP (every report still says INTERRUPTED with the
scenarios not run; never 0).
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``run`` command's description, epilog and options."""
    parser.description = "Run every scenario of the features against an implementation and report per requirement."
    parser.epilog = RUN_EPILOG.replace("$SESSIONS_ENV", "$" + ccweb_spec.binding().sessions_dir_env)
    add_arguments(parser, "run")


def main(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``: signals handled, nothing of the run left behind on any path."""
    options = _options(args)
    chosen = last_failed.choose(options)
    if chosen is not None:
        print(f"ccweb-conformance: {chosen.note}", file=sys.stderr)
        if chosen.names and options.fuzz is None:  # a selection is a narrow run: fuzz only when asked
            options = dataclasses.replace(options, fuzz=0)
    if options.collect_only:
        return collect_only(options, chosen)
    config_file = getattr(args, "config_file", None)
    return framed(
        "run",
        options,
        lambda frame: _run(frame, chosen, config_file=config_file),
        interrupted_detail="nothing was reported",
        report_leftovers=False,
    )


def _options(args: argparse.Namespace) -> RunnerOptions:
    options = resolve(vars(args))
    if options.tags:
        options = dataclasses.replace(options, tags=canonical_tags(options.tags, feature_scenarios()))
    if options.keyword:
        check_keyword(options.keyword)  # bounded, one line, before pytest parses it
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    return options


def _fuzz_phase(
    options: RunnerOptions,
    scenarios: list[ScenarioResult],
    *,
    verbose: bool,
    max_seconds: float,
    language: str = DEFAULT_LANGUAGE,
) -> list[str]:
    """Differential fuzzing after the scenarios, within ``max_seconds``: appends its scenario, returns its lines."""
    try:
        with signals.shielded():  # a signal cuts no import short: it is raised once the import is whole
            from ccweb_conformance import fuzz  # noqa: PLC0415 (hypothesis is needed only when fuzzing)
    except ImportError as error:
        raise UsageError(
            f"fuzzing needs the package hypothesis ({error}); install it with pip, or pass --fuzz 0"
        ) from None
    settings = fuzz.settings_for(options)
    if settings is None:
        return []
    if max_seconds < settings.bound:  # --max-time leaves less: reaching it fails the phase as incomplete
        settings = dataclasses.replace(settings, time_limit=max_seconds)
    gc.freeze()  # Hypothesis collects garbage on first use: half a second over the suite's objects, none garbage
    try:
        tolerated = frozenset() if options.expected_failures is None else load_expected_failures(
            options.expected_failures
        ).requirements
        run = fuzz.run_fuzz(options, settings, tolerated=tolerated)
    finally:
        gc.unfreeze()
    scenarios.append(_as_expected(fuzz.fuzz_scenario(run), options))
    return fuzz.fuzz_console_lines(run, verbose=verbose, language=language)


def _as_expected(scenario: ScenarioResult, options: RunnerOptions) -> ScenarioResult:
    """A failed fuzz phase is an expected failure when every requirement it is charged to has an entry in the
    expected-failures file, as a scenario's failure would be (a known UTF-16 bug shows in the phase too); the
    phase ran all its cases past such differences, so it fails on any other."""
    if scenario.status != "failed" or options.expected_failures is None:
        return scenario
    entry = load_expected_failures(options.expected_failures).entry_for(scenario.nodeid, scenario.failed_requirements())
    if entry is not None:
        scenario.status = "xfailed"
        scenario.expected_failure_reason = entry.reason
    return scenario


def _staleness(options: RunnerOptions, state: signals.InterruptState, run: RunResult) -> Staleness | None:
    """The expected-failures entries that covered nothing (None without a file or after an interrupt); the
    stale ones the run judged fail it (``run.stale_expected_failures``)."""
    if options.expected_failures is None or state.interrupted:
        return None
    complete = run.selection is None and run.stopped is None
    staleness = load_expected_failures(options.expected_failures).stale(run.scenarios, complete=complete)
    run.stale_expected_failures = list(staleness.errors)
    return staleness


def _fuzz_after_scenarios(
    options: RunnerOptions,
    state: signals.InterruptState,
    collector: ResultCollector | None,
    scenarios: list[ScenarioResult],
    started: float,
    *,
    language: str = DEFAULT_LANGUAGE,
) -> list[str]:
    """The fuzz phase, unless the run was interrupted or stopped; it stays inside --max-time."""
    left = options.max_time - (time.perf_counter() - started)
    if options.fuzz == 0 or state.interrupted or collector is None or collector.stop_reason is not None or left <= 0:
        return []
    try:
        return _fuzz_phase(options, scenarios, verbose=options.verbose, max_seconds=left, language=language)
    except RunInterrupted:
        return [messages(language)("fuzz.interrupted")]


def _suite(options: RunnerOptions, chosen: last_failed.LastFailed | None) -> SuiteOutcome | None:
    if not (options.stdio or options.url or options.http_cmd or options.in_process or options.collect_only):
        zygote_client.start_in_background()  # the bundled reference's imports, while pytest collects the scenarios
    try:
        return run_suite(options, live=sys.stderr.isatty(), extra_plugins=chosen.plugins() if chosen else ())
    except RunInterrupted:  # a signal outside pytest's session (before it began)
        return None


def starting_line(options: RunnerOptions) -> str:
    """What a run starts, said at once (collecting the scenarios and starting the server take seconds).

    On a terminal's stderr, beside the live counter, in English as every line there: stdout's first line
    stays the verdict, and a log (not a terminal) keeps a start-up fault to its one line.
    """
    if options.stdio:
        target = f"the stdio server {options.stdio!r}"
    elif options.http_cmd:
        target = f"the HTTP server {options.http_cmd!r} at {options.url}"
    elif options.url:
        target = f"the HTTP server at {options.url}"
    elif options.in_process:
        target = "the in-process reference server"
    else:
        target = "the bundled reference server (stdio)"
    selection = selection_label(options, None)
    chosen = f" (selection: {selection})" if selection else ""
    fuzz = "" if options.fuzz == 0 or selection else ", then the fuzz phase"
    return f"testing {target}{chosen}: the scenarios of ccweb_list_user_inputs {ccweb_spec.contract_version()}{fuzz}"


def reproducer(options: RunnerOptions, keyword: str) -> str:
    """The command that reruns the scenario ``keyword`` selects against the same target, secrets redacted
    (``--header`` and ``--env`` values shown as ``***``, the names to supply again said after it, as the
    fuzz phase's replay line does)."""
    words = ["ccweb-conformance", "run", *command_line(options, ("target", "binding")), "-k", keyword]
    hidden = [f"--header {h.split(':', 1)[0]}" for h in options.header]
    hidden += [f"--env {e.split('=', 1)[0]}" for e in options.env]
    supply = f"  # {messages()('fuzz.replay_supply', names=', '.join(hidden))}" if hidden else ""
    return shlex.join(words) + supply


def _add_reproducers(run: RunResult, options: RunnerOptions) -> None:
    for scenario in run.scenarios:
        if scenario.status in ("failed", "warning") and scenario.keyword is not None:
            scenario.reproducer = reproducer(options, scenario.keyword)


def _annotate(frame: Frame, run: RunResult) -> None:
    """On GitHub Actions, the failed requirements as workflow commands (printed as they are, never defused)."""
    lines = annotation_lines(run, language=frame.language) if in_github_actions() else []
    if lines:
        frame.show("\n".join(lines))


def _startup_refusal(
    outcome: SuiteOutcome | None, state: signals.InterruptState, secrets: list[str], language: str
) -> int | None:
    """EXIT_USAGE, said in one line, when the implementation could not be started or the suite broke; else None."""
    if state.interrupted or outcome is None:
        return None
    if outcome.startup_error is not None:
        line = startup_line(outcome.startup_error, language)
    elif outcome.broken is not None or outcome.collector is None:
        line = str(outcome.broken)
    else:
        return None
    print(f"ccweb-conformance: error: {neutralise(scrub(line, secrets))}", file=sys.stderr)
    return EXIT_USAGE


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
    outcome: SuiteOutcome | None,
    scenarios: list[ScenarioResult],
    chosen: last_failed.LastFailed | None,
    *,
    started: float,
    config_file: str | None,
) -> RunResult:
    """The run model of what happened, with what the sweep found and every scenario's reproducer."""
    options = frame.options
    leftovers = frame.session.sweep()
    run = RunResult(
        kit_version=kit_version(),
        spec_version=ccweb_spec.contract_version(),
        duration_s=time.perf_counter() - started,
        scenarios=scenarios,
        strict=options.strict,
        selection=last_failed.run_selection(chosen, selection_label(options, outcome), selection_label(options, None)),
        interrupted=frame.state.name,
        leftover_processes=[leftover.describe() for leftover in leftovers],
        processes=census.summary(census.take()),
        waits=waits.take(),
        config_file=config_file,
        expected_failures_file=None if options.expected_failures is None else str(options.expected_failures),
        **_target_facts(outcome.collector if outcome is not None else None),
    )
    _add_reproducers(run, options)
    return run


def _summary(frame: Frame, run: RunResult, fuzz_lines: list[str]) -> None:
    """The console summary (the fuzz phase's lines and where the reports are before the totals), then the
    annotations on GitHub Actions."""
    reports: list[Path | str] = list(requested(frame.options, "run"))
    closing = [reports_line(reports, frame.language)] if run.failed or run.counts()["warning"] else []
    color = colour_wanted(frame.console, os.environ)
    frame.show(
        render_summary(
            run, color=color, verbose=frame.options.verbose, language=frame.language,
            before_totals=[*fuzz_lines, *closing],
        )
    )
    _annotate(frame, run)


def _stale_lines(staleness: Staleness | None) -> None:
    """The expected-failures entries that covered nothing: warnings, and errors for those that fail the run."""
    if staleness is None:
        return
    for line in staleness.warnings:
        print(f"ccweb-conformance: warning: {line}", file=sys.stderr)
    for line in staleness.errors:
        print(f"ccweb-conformance: error: {line}", file=sys.stderr)


def _run(frame: Frame, chosen: last_failed.LastFailed | None = None, *, config_file: str | None = None) -> int:
    """The suite, the fuzz phase, the run model, the records, the reports, the console, the exit code."""
    options, state = frame.options, frame.state
    started = time.perf_counter()
    census.take(), waits.take()  # counted from here: what an earlier command of this process did is not this run's
    if sys.stderr.isatty():  # a terminal sees at once what started; a log keeps a fault to its one line
        print(f"ccweb-conformance: {scrub(starting_line(options), frame.secrets)}", file=sys.stderr, flush=True)
    outcome = _suite(options, chosen)
    refused = _startup_refusal(outcome, state, frame.secrets, frame.language)
    if refused is not None:
        return refused
    collector = outcome.collector if outcome is not None else None
    scenarios = list(collector.results) if collector is not None else []
    fuzz_lines = _fuzz_after_scenarios(options, state, collector, scenarios, started, language=frame.language)
    frame.settle()
    run = _run_result(frame, outcome, scenarios, chosen, started=started, config_file=config_file)
    if not run.scenarios and not state.interrupted:
        print("ccweb-conformance: error: no scenario matched the selection", file=sys.stderr)
        return EXIT_USAGE
    staleness = _staleness(options, state, run)
    not_recorded = last_failed.update(options, run)
    if not_recorded is not None:
        print(f"ccweb-conformance: warning: {not_recorded}", file=sys.stderr)
    written = frame.write_reports(run)
    _summary(frame, run, fuzz_lines)
    _stale_lines(staleness)
    # Lines on stderr (errors, warnings, the interrupt) stay English in every language: they are
    # stable messages that scripts and CI logs grep for; the console summary above is translated.
    return frame.exit_code(failed=run.failed, written=written, detail=f"{run.counts()['notrun']} scenarios not run")
