"""``ccweb-conformance``: run the conformance suite against an implementation."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.config import load_config
from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, EXIT_USAGE, UsageError
from ccweb_conformance.i18n import LANGUAGES, pick_language
from ccweb_conformance.options import RunnerOptions, add_arguments, from_values
from ccweb_conformance.profile.options import add_profile_options
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import write_cucumber
from ccweb_conformance.reports.failure_block import reports_line
from ccweb_conformance.reports.json_report import write_json
from ccweb_conformance.reports.junit import write_junit
from ccweb_conformance.reports.listing import build_listing, render_listing
from ccweb_conformance.reports.living_spec import regenerate_command, render_spec
from ccweb_conformance.reports.markdown import write_markdown
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.output import emit, is_stdout, scrub
from ccweb_conformance.reports.terminal import colour_wanted
from ccweb_conformance.suite.catalogue import feature_scenarios
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.selection import canonical_tags, select
from ccweb_conformance.suite.session import run_suite

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

exit codes: 0 every required scenario passed (expected failures allowed); 1 a scenario
failed or an expected failure passed; 2 usage error, or the implementation could not be
started or reached.
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


def _fuzz_phase(options: RunnerOptions, scenarios: list[ScenarioResult], *, verbose: bool) -> list[str]:
    """Differential fuzzing after the scenarios: appends its scenario, returns its console lines."""
    try:
        from ccweb_conformance import fuzz  # noqa: PLC0415 (hypothesis is needed only when fuzzing)
    except ImportError as error:
        raise UsageError(
            f"fuzzing needs the package hypothesis ({error}); install it with pip, or pass --fuzz 0"
        ) from None
    settings = fuzz.settings_for(options)
    if settings is None:
        return []
    run = fuzz.run_fuzz(options, settings)
    scenarios.append(fuzz.fuzz_scenario(run))
    return fuzz.fuzz_console_lines(run, verbose=verbose)


def run_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``."""
    options = _options(args)
    reports = [options.junitxml, options.json, options.cucumberjson, options.markdown]
    if sum(is_stdout(r) for r in reports) > 1:
        raise UsageError("only one report can go to stdout (-)")
    console = sys.stderr if any(is_stdout(r) for r in reports) else sys.stdout
    color = colour_wanted(console, os.environ)
    secrets = options.secrets()
    started = time.perf_counter()
    outcome = run_suite(options, live=sys.stderr.isatty())
    if outcome.startup_error is not None:
        print(f"ccweb-conformance: error: {outcome.startup_error}", file=sys.stderr)
        return EXIT_USAGE
    if outcome.broken is not None or outcome.collector is None:
        print(f"ccweb-conformance: error: {outcome.broken}", file=sys.stderr)
        return EXIT_USAGE
    collector = outcome.collector
    scenarios = list(collector.results)
    fuzz_lines = _fuzz_phase(options, scenarios, verbose=options.verbose) if options.fuzz != 0 else []
    run = RunResult(
        kit_version=kit_version(),
        spec_version=ccweb_spec.contract_version(),
        target=collector.target_description,
        transport=collector.transport,  # type: ignore[arg-type]
        protocol_version=collector.protocol_version,
        started_at=collector.started_at,
        duration_s=time.perf_counter() - started,
        scenarios=scenarios,
        strict=options.strict,
        selection=options.tags or options.keyword,
    )
    if not run.scenarios:
        print("ccweb-conformance: error: no scenario matched the selection", file=sys.stderr)
        return EXIT_USAGE
    language = pick_language(options.lang)
    print(scrub(render_summary(run, color=color, verbose=options.verbose, language=language), secrets), file=console)
    if fuzz_lines:
        print(scrub("\n".join(fuzz_lines), secrets), file=console)
    if options.expected_failures is not None:
        expected = load_expected_failures(options.expected_failures)
        seen_requirements = {r for s in run.scenarios for r in s.requirements}
        for line in expected.unmatched([s.nodeid for s in run.scenarios], seen_requirements):
            print(f"ccweb-conformance: warning: {line}", file=sys.stderr)
    def cucumber(result: RunResult, path: Path) -> None:
        write_cucumber(result, path, flavour=options.cucumber_flavour)

    def markdown(result: RunResult, path: Path) -> None:
        write_markdown(result, path, language=language)

    writers = (
        (options.junitxml, write_junit),
        (options.json, write_json),
        (options.cucumberjson, cucumber),
        (options.markdown, markdown),
    )
    for path, write in writers:
        if path is not None:
            emit(write, run, path, secrets)
    if run.failed or run.counts()["warning"]:
        print(reports_line([p for p in reports if p is not None]), file=console)
    return EXIT_FAILED if run.failed else EXIT_PASSED


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
    except KeyboardInterrupt:
        print("ccweb-conformance: interrupted", file=sys.stderr)
        return EXIT_USAGE
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
