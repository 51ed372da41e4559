"""``ccweb-conformance``: run the conformance suite against an implementation."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import ccweb_spec
from ccweb_conformance.errors import EXIT_FAILED, EXIT_PASSED, EXIT_USAGE, UsageError
from ccweb_conformance.options import RunnerOptions, add_arguments, from_values
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import write_cucumber
from ccweb_conformance.reports.json_report import write_json
from ccweb_conformance.reports.junit import write_junit
from ccweb_conformance.reports.living_spec import render_spec
from ccweb_conformance.reports.markdown import write_markdown
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.suite.catalogue import feature_scenarios
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.session import run_suite

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

exit codes: 0 every required scenario passed (expected failures allowed); 1 a scenario
failed or an expected failure passed; 2 usage error, or the implementation could not be
started or reached.
"""

SPEC_EPILOG = """
examples:
  ccweb-conformance spec                          print the contract as Markdown
  ccweb-conformance spec --output docs/SPEC.md    write it to a file
  ccweb-conformance spec --check docs/SPEC.md     exit 1 if the file differs from a fresh render

exit codes: 0 printed, written or up to date; 1 --check found a difference; 2 usage error.
"""

TOP_EPILOG = """
commands:
  run     run the suite against an implementation (default target: the bundled reference)
  spec    render the contract (tool, requirements, errors, schemas, traceability) as Markdown

examples:
  ccweb-conformance run --stdio "node lib/mcp-server.js" --junitxml junit.xml
  ccweb-conformance spec --output docs/SPEC.md

Run 'ccweb-conformance COMMAND --help' for a command's options and examples.
"""


def kit_version() -> str:
    """The installed kit's version."""
    try:
        return version("ccweb-list-user-inputs-kit")
    except PackageNotFoundError:
        return "0"


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
    spec.set_defaults(handler=spec_command)
    return parser


def _options(args: argparse.Namespace) -> RunnerOptions:
    options = from_values(vars(args))
    problems = options.problems()
    if problems:
        raise UsageError(problems[0])
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    for report in (options.junitxml, options.json, options.cucumberjson, options.markdown):
        if report is not None and not report.resolve().parent.is_dir():
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
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
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
    )
    if not run.scenarios:
        print("ccweb-conformance: error: no scenario matched the selection", file=sys.stderr)
        return EXIT_USAGE
    print(render_summary(run, color=color, verbose=options.verbose))
    if fuzz_lines:
        print("\n".join(fuzz_lines))
    if options.expected_failures is not None:
        expected = load_expected_failures(options.expected_failures)
        seen_requirements = {r for s in run.scenarios for r in s.requirements}
        for line in expected.unmatched([s.nodeid for s in run.scenarios], seen_requirements):
            print(f"ccweb-conformance: warning: {line}", file=sys.stderr)
    writers = ((options.junitxml, write_junit), (options.json, write_json), (options.cucumberjson, write_cucumber))
    for path, write in writers:
        if path is not None:
            write(run, path)
    if options.markdown is not None:
        write_markdown(run, options.markdown)
    return EXIT_FAILED if run.failed else EXIT_PASSED


def spec_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    text = render_spec(kit_version(), feature_scenarios())
    if args.check is not None:
        if not args.check.is_file():
            raise UsageError(f"cannot check {str(args.check)!r}: no such file")
        if args.check.read_text(encoding="utf-8") != text:
            print(
                f"ccweb-conformance: {args.check} is out of date; run 'ccweb-conformance spec --output {args.check}'",
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
    try:
        args = build_parser().parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
