"""``ccweb-conformance``: run the conformance suite against an implementation."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import as_file, files
from pathlib import Path

import pytest

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.expected_failures import load_expected_failures
from ccweb_conformance.options import DEFAULT_FUZZ_TIME, PROTOCOLS, RunnerOptions
from ccweb_conformance.profile.options import add_profile_options
from ccweb_conformance.progress import RunObserver
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import write_cucumber
from ccweb_conformance.reports.json_report import write_json
from ccweb_conformance.reports.junit import write_junit
from ccweb_conformance.reports.markdown import write_markdown
from ccweb_conformance.results import RunResult, ScenarioResult
from ccweb_conformance.spec_render import render_spec

EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

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

PROFILE_EPILOG = """
Writes cc-web conversations of growing size (default 10, 1,000, 10,000 and 100,000 messages;
a 100,000-message file is about 66 MB), and measures per size: the first call after the file
changed, calls on the unchanged file (median, p95), a tools/list round trip as the floor,
and for servers it starts the bytes read per repeated call and the peak memory (/proc). The
bundled reference is profiled beside it. Every call is checked against the reference core.
Budgets from spec/performance.yaml are advisory: a miss is a warning, never a failure.

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

exit codes: 0 printed, written or up to date; 1 --check found a difference; 2 usage error.
"""

TOP_EPILOG = """
commands:
  run     run the suite against an implementation (default target: the bundled reference)
  spec    render the contract (tool, requirements, errors, schemas, traceability) as Markdown
  profile measure how the cost of a call grows with the conversation, beside the reference

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


def add_target_arguments(parser: argparse.ArgumentParser, *, in_process: bool) -> None:
    """The target and binding options, shared by ``run`` and ``profile``."""
    target = parser.add_argument_group("target")
    target.add_argument(
        "--stdio", metavar="CMD", help="command that serves MCP over stdio ({sessions_dir} substituted)"
    )
    target.add_argument(
        "--http-cmd", metavar="CMD", help="command that serves Streamable HTTP ({port}, {sessions_dir})"
    )
    target.add_argument("--url", metavar="URL", help="Streamable HTTP endpoint, e.g. http://127.0.0.1:{port}/mcp")
    target.add_argument(
        "--sessions-dir", metavar="DIR", type=Path, help="sessions directory of a running server (--url)"
    )
    if in_process:
        target.add_argument(
            "--in-process",
            action="store_true",
            help="the bundled reference inside this process (the kit's own fast tests)",
        )
    binding = parser.add_argument_group("binding")
    binding.add_argument("--protocol", choices=PROTOCOLS, default="auto", help="MCP era (default: auto-detect)")
    binding.add_argument(
        "--source-env", default="CCWEB_SESSION_ID", help="stdio source variable (default: %(default)s)"
    )
    binding.add_argument(
        "--source-header", default="X-CCWeb-Session-Id", help="HTTP source header (default: %(default)s)"
    )
    binding.add_argument("--timeout", type=float, default=10.0, metavar="SECONDS", help="per request (default: 10)")


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
    add_target_arguments(run, in_process=True)
    selection = run.add_argument_group("selection")
    selection.add_argument("-k", metavar="EXPR", help="only scenarios whose test name matches EXPR (pytest -k)")
    selection.add_argument("--tags", metavar="TAGS", help="only scenarios tagged with one of TAGS (e.g. AC-7,SRC-1)")
    selection.add_argument("--expected-failures", metavar="FILE", type=Path, help="YAML file of known failures")
    selection.add_argument("--strict", action="store_true", help="SHOULD-level failures fail the run")
    fuzzing = run.add_argument_group("differential fuzzing (after the scenarios)")
    fuzzing.add_argument("--fuzz", metavar="N", type=int, help="compare N generated conversations with the reference")
    fuzzing.add_argument("--seed", metavar="S", type=int, default=0, help="same seed, same cases (default: 0)")
    fuzzing.add_argument("--fuzz-time", metavar="SECONDS", type=float, default=DEFAULT_FUZZ_TIME, help="(default: 60)")
    reports = run.add_argument_group("reports")
    reports.add_argument("--junitxml", metavar="FILE", type=Path, help="write JUnit XML")
    reports.add_argument("--json", metavar="FILE", type=Path, help="write the JSON report (versioned schema)")
    reports.add_argument("--cucumberjson", metavar="FILE", type=Path, help="write Cucumber JSON")
    reports.add_argument("--markdown", metavar="FILE", type=Path, help="write a Markdown summary (CI step summary)")
    reports.add_argument("-v", "--verbose", action="store_true", help="list every scenario and full messages")
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
    profile = commands.add_parser(
        "profile",
        help="measure how the cost of a call grows with the conversation",
        description="Profile an implementation on cc-web conversations of growing size, beside the reference.",
        epilog=PROFILE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(profile, in_process=False)
    add_profile_options(profile)
    profile.set_defaults(handler=profile_command)
    return parser


def _options(args: argparse.Namespace) -> RunnerOptions:
    options = RunnerOptions(
        stdio=args.stdio,
        http_cmd=args.http_cmd,
        url=args.url,
        sessions_dir=args.sessions_dir,
        in_process=args.in_process,
        protocol=args.protocol,
        source_env=args.source_env,
        source_header=args.source_header,
        timeout=args.timeout,
        expected_failures=args.expected_failures,
        tags=args.tags,
        strict=args.strict,
        fuzz=args.fuzz,
        seed=args.seed,
        fuzz_time=args.fuzz_time,
    )
    problems = options.problems()
    if problems:
        raise UsageError(problems[0])
    if options.expected_failures is not None:
        load_expected_failures(options.expected_failures)  # fail early, with its own message
    for report in (args.junitxml, args.json, args.cucumberjson, args.markdown):
        if report is not None and not report.resolve().parent.is_dir():
            raise UsageError(f"cannot write {str(report)!r}: its folder does not exist")
    return options


def pytest_arguments(options: RunnerOptions, suite: Path, keyword: str | None) -> list[str]:
    """The pytest command line that runs the suite for these options."""
    arguments = [
        str(suite),
        "-c",
        os.devnull,
        "--rootdir",
        str(suite.parent),
        # Only the plugins the suite needs, whatever else the environment has installed
        # (pytest-randomly, pytest-xdist...); the steps raise their own messages, so no
        # assertion rewriting (which cost about 0.5 s a run).
        "--disable-plugin-autoload",
        "-p",
        "pytest_bdd.plugin",
        "-p",
        "ccweb_conformance.plugin",
        "--assert=plain",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        "-p",
        "no:unraisableexception",  # its garbage collections at exit cost 0.1 s
        "-p",
        "no:threadexception",  # the reader threads end quietly at end of stream; workers report through futures
        "--ccweb-protocol",
        options.protocol,
        "--ccweb-source-env",
        options.source_env,
        "--ccweb-source-header",
        options.source_header,
        "--ccweb-timeout",
        str(options.timeout),
    ]
    pairs = {
        "--ccweb-stdio": options.stdio,
        "--ccweb-http-cmd": options.http_cmd,
        "--ccweb-url": options.url,
        "--ccweb-sessions-dir": options.sessions_dir,
        "--ccweb-expected-failures": options.expected_failures,
        "--ccweb-tags": options.tags,
        "-k": keyword,
    }
    for flag, value in pairs.items():
        if value:
            arguments += [flag, str(value)]
    if options.in_process:
        arguments.append("--ccweb-in-process")
    if options.strict:
        arguments.append("--ccweb-strict")
    return arguments


def _fuzz_phase(options: RunnerOptions, scenarios: list[ScenarioResult], *, verbose: bool) -> list[str]:
    """Differential fuzzing after the scenarios: appends its scenario, returns its console lines."""
    try:
        from ccweb_conformance import fuzz  # noqa: PLC0415 (hypothesis is needed only when fuzzing)
    except ImportError as error:
        raise UsageError(f"--fuzz needs the package hypothesis ({error}); install it with pip") from None
    run = fuzz.run_fuzz(options, fuzz.FuzzSettings(options.fuzz or 0, options.seed, options.fuzz_time))
    scenarios.append(fuzz.fuzz_scenario(run))
    return fuzz.fuzz_console_lines(run, verbose=verbose)


def run_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance run``."""
    options = _options(args)
    color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    observer = RunObserver(verbose=args.verbose, live=sys.stderr.isatty())
    started = time.perf_counter()
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        code = pytest.main(pytest_arguments(options, suite, args.k), plugins=[observer])
    if observer.startup_error is not None:
        print(f"ccweb-conformance: error: {observer.startup_error}", file=sys.stderr)
        return EXIT_USAGE
    if code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) or observer.collector is None:
        print(f"ccweb-conformance: error: the suite could not run (pytest exit code {int(code)})", file=sys.stderr)
        return EXIT_USAGE
    collector = observer.collector
    scenarios = list(collector.results)
    fuzz_lines = _fuzz_phase(options, scenarios, verbose=args.verbose) if options.fuzz is not None else []
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
    print(render_summary(run, color=color, verbose=args.verbose))
    if fuzz_lines:
        print("\n".join(fuzz_lines))
    if options.expected_failures is not None:
        expected = load_expected_failures(options.expected_failures)
        seen_requirements = {r for s in run.scenarios for r in s.requirements}
        for line in expected.unmatched([s.nodeid for s in run.scenarios], seen_requirements):
            print(f"ccweb-conformance: warning: {line}", file=sys.stderr)
    writers = ((args.junitxml, write_junit), (args.json, write_json), (args.cucumberjson, write_cucumber))
    for path, write in writers:
        if path is not None:
            write(run, path)
    if args.markdown is not None:
        write_markdown(run, args.markdown)
    return EXIT_FAILED if run.failed else EXIT_PASSED


def profile_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance profile``."""
    from ccweb_conformance.profile.command import profile_command as run_profile  # noqa: PLC0415 (imports the oracle)

    return run_profile(args, kit_version=kit_version())


def spec_command(args: argparse.Namespace) -> int:
    """``ccweb-conformance spec``."""
    text = render_spec(kit_version())
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
