"""``ccweb-conformance``: run the conformance suite against an implementation."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.config import load_config
from ccweb_conformance.errors import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    RunInterrupted,
    UsageError,
    interrupted_exit_code,
)
from ccweb_conformance.i18n import DEFAULT_LANGUAGE, LANGUAGES, messages, pick_language
from ccweb_conformance.options import RunnerOptions, add_arguments, from_values
from ccweb_conformance.profile.options import add_profile_options
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import write_cucumber
from ccweb_conformance.reports.failure_block import reports_line
from ccweb_conformance.reports.hints import startup_line
from ccweb_conformance.reports.json_report import write_json
from ccweb_conformance.reports.junit import write_junit
from ccweb_conformance.reports.listing import build_listing, render_listing
from ccweb_conformance.reports.living_spec import regenerate_command, render_spec
from ccweb_conformance.reports.markdown import write_markdown
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.output import emit, is_stdout, scrub
from ccweb_conformance.reports.terminal import colour_wanted
from ccweb_conformance.suite.catalogue import feature_scenarios
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.selection import canonical_tags, select
from ccweb_conformance.suite.session import SuiteOutcome, run_suite
from ccweb_conformance.transport import reaper, signals

PLATFORMS = "Linux and macOS (on Windows, run it inside WSL)"
WINDOWS_MESSAGE = f"ccweb-conformance supports {PLATFORMS}; Windows itself is not supported"

RUN_EPILOG = """
targets (choose one; none means the bundled reference server over stdio):
  --stdio "CMD ARGS"                    spawn CMD, talk MCP over its stdin/stdout
  --http-cmd "CMD --port {port}" --url http://127.0.0.1:{port}/mcp
                                        spawn CMD, talk Streamable HTTP to URL
  --url URL --sessions-dir DIR          a server that is already running and reads DIR

The runner writes conversation files (cc-web session JSON) into the sessions directory:
its own temporary one, passed to spawned servers as $CC_WEB_SESSIONS_DIR and {sessions_dir},
or DIR for --url, where it only creates files named ccwk-*.json and removes them after.

examples:
  ccweb-conformance run
  ccweb-conformance run --stdio "node lib/mcp-server.js"
  ccweb-conformance run --stdio "node server.js" --junitxml junit.xml --markdown summary.md
  ccweb-conformance run --http-cmd "ccweb-reference --http --port {port} --sessions-dir {sessions_dir}" \\
      --url "http://127.0.0.1:{port}/mcp"
  ccweb-conformance run --stdio "node server.js" --expected-failures known-gaps.yaml
  ccweb-conformance run --tags AC-7,SRC-1 -v
  ccweb-conformance run --url https://host/mcp --sessions-dir DIR --header "Authorization: Bearer $TOKEN"
  ccweb-conformance run --stdio "node server.js" --sessions-dir ./my-sessions --env LOG_LEVEL=debug
  ccweb-conformance run --json - | jq .counts       (a report path of - is stdout; the summary goes to stderr)

--sessions-dir also works with --stdio and --http-cmd: the spawned server is given your
directory (one your own service owns) and the runner only adds and removes its ccwk-* files.

config file: ccweb-conformance.toml, or [tool.ccweb-conformance] in pyproject.toml, in the
current directory; keys are the long option names (stdio = "node server.js", header = [...]);
the command line wins.

bounds (a CI gate always ends, and leaves no process and no file of the run behind):
  --timeout S             per request, partial lines and SSE streams included (default 10)
  --max-message-bytes N   one incoming message, over stdio, JSON or SSE (default 16 MiB)
  --max-time S            the whole run; scenarios left are not run, exit 1 (default 1800)
  --stop-after N          after N scenarios in a row in which the server died or timed out,
                          the rest is not run: "the implementation stopped answering" (default 3)
  Processes a server leaves behind (a daemon that called setsid) are stopped and named.

exit codes: 0 every required scenario passed (expected failures allowed); 1 a scenario
failed or was not run (--max-time, the implementation stopped answering), an expected
failure passed, or the server broke the protocol (also during the handshake: PROTO-1
fails); 2 usage error, the implementation could not be started, exited or never answered,
or a report could not be written; 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP
(every report still says INTERRUPTED with the scenarios not run; never 0).
"""

PROFILE_EPILOG = """
Writes cc-web conversations of growing size (default 10, 1,000, 10,000 and 100,000 messages;
a 100,000-message file is about 66 MB), and measures per size: the first call after the file
changed, calls on the unchanged file (median, p95), a tools/list round trip as the floor,
and for servers it starts the bytes read per repeated call and the peak memory (/proc). The
bundled reference is profiled beside it. Every call is checked against the reference core.
Budgets from spec/ccweb_spec/performance.yaml are advisory: a miss is a warning, never a failure.

examples:
  ccweb-conformance profile                                   the bundled reference alone
  ccweb-conformance profile --stdio "node examples/node-server/server.js"
  ccweb-conformance profile --stdio "node server.js" --sizes 10,1000 --repeats 10
  ccweb-conformance profile --stdio "node server.js" --markdown "$GITHUB_STEP_SUMMARY" --svg profile.svg
  ccweb-conformance profile --url http://127.0.0.1:8765/mcp --sessions-dir ~/.cc-web/sessions --max-size 10000

exit codes: 0 profiled (advisory warnings allowed); 1 an answer differed from the reference
core or the implementation stopped answering; 2 usage error, or it could not be started or
reached; 130 / 143 interrupted by SIGINT / SIGTERM (servers stopped, files removed).
"""

SPEC_EPILOG = """
examples:
  ccweb-conformance spec                          print the contract as Markdown
  ccweb-conformance spec --output docs/SPEC.md    write it to a file
  ccweb-conformance spec --check docs/SPEC.md     exit 1 if the file differs from a fresh render
  ccweb-conformance spec --lang zh-CN --output docs/SPEC.zh-CN.md    the same contract in Chinese

exit codes: 0 printed, written or up to date; 1 --check found a difference; 2 usage error.
"""

TOP_EPILOG = """
commands:
  run     run the suite against an implementation (default target: the bundled reference)
  list    list the requirements and the scenarios that prove them (nothing is started)
  spec    render the contract (tool, requirements, errors, schemas, traceability) as Markdown
  profile measure how the cost of a call grows with the conversation, beside the reference

examples:
  ccweb-conformance run --stdio "node lib/mcp-server.js" --junitxml junit.xml
  ccweb-conformance spec --output docs/SPEC.md

Run 'ccweb-conformance COMMAND --help' for a command's options and examples.
Platforms: Linux and macOS (on Windows, run it inside WSL).
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = _Parser(
        prog="ccweb-conformance",
        description="Conformance suite for the MCP tool ccweb_list_user_inputs.",
        epilog=TOP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {kit_version()} (spec {ccweb_spec.contract_version()})"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run the suite against an implementation",
        description="Run every scenario of the features against an implementation and report per requirement.",
        epilog=RUN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(run, "run")
    run.set_defaults(handler=run_command)
    listing = commands.add_parser(
        "list",
        help="list requirements and the scenarios that prove them",
        description="List every requirement (ID, level, statement, criterion) and the scenarios that prove it, "
        "without starting anything.",
        epilog="examples:\n  ccweb-conformance list\n  ccweb-conformance list --tags uni-1,AC-2\n"
        "  ccweb-conformance list -k emoji --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(listing, "list")
    listing.add_argument("--json", dest="as_json", action="store_true", help="print JSON instead of text")
    listing.set_defaults(handler=list_command)
    spec = commands.add_parser(
        "spec",
        help="render the contract as Markdown",
        description="Render the whole contract from the spec files and the features as Markdown.",
        epilog=SPEC_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    destination = spec.add_mutually_exclusive_group()
    destination.add_argument("--output", metavar="FILE", type=Path, help="write the Markdown to FILE")
    destination.add_argument("--check", metavar="FILE", type=Path, help="exit 1 if FILE differs from a fresh render")
    spec.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the document (default: en)")
    spec.set_defaults(handler=spec_command)
    profile = commands.add_parser(
        "profile",
        help="measure how the cost of a call grows with the conversation",
        description="Profile an implementation on cc-web conversations of growing size, beside the reference.",
        epilog=PROFILE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(profile, "profile")
    add_profile_options(profile)
    profile.set_defaults(handler=profile_command)
    from ccweb_conformance.commands import export  # noqa: PLC0415

    exporting = commands.add_parser(
        "export",
        help="write the suite's cases as JSON for your own test runner",
        description="Write the suite's cases as language-neutral JSON: function-level cases a harness replays "
        "without MCP, and the MCP-level scenarios left to 'run'.",
        epilog=export.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_arguments(exporting)
    exporting.set_defaults(handler=export.run)
    return parser


def _options(args: argparse.Namespace) -> RunnerOptions:
    options = from_values(vars(args))
    if options.tags:
        options = dataclasses.replace(options, tags=canonical_tags(options.tags, feature_scenarios()))
    problems = options.problems()
    if problems:
        raise UsageError(problems[0])
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    for report in (options.junitxml, options.json, options.cucumberjson, options.markdown):
        if report is not None and not is_stdout(report) and not report.resolve().parent.is_dir():
            raise UsageError(f"cannot write {str(report)!r}: its folder does not exist")
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
        from ccweb_conformance import fuzz  # noqa: PLC0415 (hypothesis is needed only when fuzzing)
    except ImportError as error:
        raise UsageError(
            f"fuzzing needs the package hypothesis ({error}); install it with pip, or pass --fuzz 0"
        ) from None
    settings = fuzz.settings_for(options)
    if settings is None:
        return []
    settings = dataclasses.replace(settings, time_limit=min(settings.time_limit, max_seconds))
    run = fuzz.run_fuzz(options, settings)
    scenarios.append(fuzz.fuzz_scenario(run))
    return fuzz.fuzz_console_lines(run, verbose=verbose, language=language)


def run_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``: signals handled, nothing of the run left behind on any path."""
    options = _options(args)
    with signals.interrupts() as state:
        reaper.become_subreaper()  # daemonised descendants of the servers come back to us
        try:
            return _run(options, state)
        finally:
            signals.disarm()
            reaper.sweep()  # whatever path was taken, no process of the run survives it


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


def _suite(options: RunnerOptions) -> SuiteOutcome | None:
    try:
        return run_suite(options, live=sys.stderr.isatty())
    except RunInterrupted:  # a signal outside pytest's session (before it began)
        return None


def _run(options: RunnerOptions, state: signals.InterruptState) -> int:
    reports = [options.junitxml, options.json, options.cucumberjson, options.markdown]
    if sum(is_stdout(r) for r in reports) > 1:
        raise UsageError("only one report can go to stdout (-)")
    console = sys.stderr if any(is_stdout(r) for r in reports) else sys.stdout
    color = colour_wanted(console, os.environ)
    secrets = options.secrets()
    language = pick_language(options.lang)
    started = time.perf_counter()
    outcome = _suite(options)
    collector = outcome.collector if outcome is not None else None
    if not state.interrupted and outcome is not None:
        if outcome.startup_error is not None:
            print(f"ccweb-conformance: error: {startup_line(outcome.startup_error, language)}", file=sys.stderr)
            return EXIT_USAGE
        if outcome.broken is not None or collector is None:
            print(f"ccweb-conformance: error: {outcome.broken}", file=sys.stderr)
            return EXIT_USAGE
    scenarios = list(collector.results) if collector is not None else []
    fuzz_lines = _fuzz_after_scenarios(options, state, collector, scenarios, started, language=language)
    signals.disarm()  # from here on a signal is recorded, and the reports still get written
    leftovers = reaper.take_killed() + reaper.sweep()
    run = RunResult(
        kit_version=kit_version(),
        spec_version=ccweb_spec.contract_version(),
        target=collector.target_description if collector is not None else "not started",
        bundled_reference=collector is not None and collector.bundled_reference,
        transport=(collector.transport if collector is not None else "stdio"),  # type: ignore[arg-type]
        protocol_version=collector.protocol_version if collector is not None else None,
        started_at=collector.started_at if collector is not None else "",
        duration_s=time.perf_counter() - started,
        scenarios=scenarios,
        strict=options.strict,
        selection=options.tags or options.keyword,
        interrupted=state.name,
        stopped=collector.stop_reason if collector is not None else None,
        leftover_processes=[leftover.describe() for leftover in leftovers],
    )
    if not run.scenarios and not state.interrupted:
        print("ccweb-conformance: error: no scenario matched the selection", file=sys.stderr)
        return EXIT_USAGE
    written = _write_reports(run, options, secrets, language)
    print(scrub(render_summary(run, color=color, verbose=options.verbose, language=language), secrets), file=console)
    if fuzz_lines:
        print(scrub("\n".join(fuzz_lines), secrets), file=console)
    if options.expected_failures is not None and not state.interrupted:
        expected = load_expected_failures(options.expected_failures)
        seen_requirements = {r for s in run.scenarios for r in s.requirements}
        for line in expected.unmatched([s.nodeid for s in run.scenarios], seen_requirements):
            print(f"ccweb-conformance: warning: {line}", file=sys.stderr)
    if run.failed or run.counts()["warning"]:
        print(reports_line([p for p in reports if p is not None], language), file=console)
    # Lines on stderr (errors, warnings, this one) stay English in every language: they are
    # stable messages that scripts and CI logs grep for; the console summary above is translated.
    if state.signum is not None:
        not_run = run.counts()["notrun"]
        print(f"ccweb-conformance: interrupted by {state.name}; {not_run} scenarios not run", file=sys.stderr)
        return interrupted_exit_code(state.signum)
    if run.failed:
        return EXIT_FAILED
    return EXIT_PASSED if written else EXIT_USAGE


REPORT_WRITERS = (
    ("JUnit XML", "junitxml"),
    ("JSON", "json"),
    ("Cucumber JSON", "cucumberjson"),
    ("Markdown", "markdown"),
)
"""Label and option field of each report."""


def _write_reports(run: RunResult, options: RunnerOptions, secrets: list[str], language: str) -> bool:
    """Write every requested report, each on its own: one that fails is one line on stderr."""
    writers: dict[str, Callable[[RunResult, Path], None]] = {
        "junitxml": write_junit,
        "json": write_json,
        "cucumberjson": lambda result, path: write_cucumber(result, path, flavour=options.cucumber_flavour),
        "markdown": lambda result, path: write_markdown(result, path, language=language),
    }
    written = True
    for label, name in REPORT_WRITERS:
        path: Path | None = getattr(options, name)
        if path is None:
            continue
        try:
            emit(writers[name], run, path, secrets)
        except Exception as error:
            written = False
            print(f"ccweb-conformance: error: could not write the {label} report {str(path)!r}: {error}",
                  file=sys.stderr)
    return written


def safe_console() -> None:
    """Make stdout and stderr escape what their encoding cannot carry instead of raising.

    A server can send any string (lone surrogates from a UTF-16 length bug), and the console
    may be in any encoding (GBK has no emoji): ``backslashreplace`` prints ``\\udc80``.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError, TypeError):  # a stream that cannot change
                reconfigure(errors="backslashreplace")


def list_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance list``: requirements and their scenarios; nothing is started."""
    scenarios = feature_scenarios()
    chosen = select(scenarios, args.tags, args.keyword)
    if not chosen:
        raise UsageError("no scenario matched the selection")
    listing = build_listing(chosen, selected=bool(args.tags or args.keyword))
    print(render_listing(listing, as_json=args.as_json))
    return EXIT_PASSED


def profile_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance profile``."""
    from ccweb_conformance.profile.command import profile_command as run_profile  # noqa: PLC0415 (imports the oracle)

    return run_profile(args, kit_version=kit_version())


def spec_command(args: argparse.Namespace) -> int:
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
            args.output.write_text(text, encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot write {str(args.output)!r}: {error.strerror}") from error
        return EXIT_PASSED
    sys.stdout.write(text)
    return EXIT_PASSED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: never a traceback for bad input."""
    if sys.platform == "win32":
        print(f"ccweb-conformance: error: {WINDOWS_MESSAGE}", file=sys.stderr)
        return EXIT_USAGE
    safe_console()
    try:
        parser = build_parser()
        _config_defaults(parser, argv)
        args = parser.parse_args(argv)
        if getattr(args, "handler", None) is None:
            build_parser().print_help()
            return EXIT_USAGE
        code: int = args.handler(args)
        return code
    except UsageError as error:
        print(f"ccweb-conformance: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:
        signum = interrupt.signum if isinstance(interrupt, RunInterrupted) else int(signal.SIGINT)
        print(f"ccweb-conformance: interrupted by {signal.Signals(signum).name}", file=sys.stderr)
        return interrupted_exit_code(signum)
    except BrokenPipeError:  # the reader of stdout went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED


def _config_defaults(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> None:
    """Make the config file's values the defaults of the command being run (the command line wins)."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = next((w for w in words if not w.startswith("-")), None)
    if command not in ("run", "list"):
        return
    values = load_config(Path.cwd(), command)
    if not values:
        return
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    subparsers.choices[command].set_defaults(**values)


if __name__ == "__main__":
    sys.exit(main())
