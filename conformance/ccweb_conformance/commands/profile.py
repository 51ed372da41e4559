"""``ccweb-conformance profile``: how an implementation's cost grows with the conversation, on the shared session."""

from __future__ import annotations

import argparse
import sys

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.commands.report_formats import requested, write_reports
from ccweb_conformance.commands.session import session
from ccweb_conformance.errors import (
    EXIT_FAILED,
    EXIT_PASSED,
    EXIT_USAGE,
    RunInterrupted,
    TargetError,
    interrupted_exit_code,
)
from ccweb_conformance.i18n import pick_language
from ccweb_conformance.options import add_arguments, resolve
from ccweb_conformance.profile.console import render_profile
from ccweb_conformance.profile.run import run_profile
from ccweb_conformance.profile.settings import profile_settings
from ccweb_conformance.reports.output import is_stdout, reader_may_leave, scrub
from ccweb_conformance.transport import signals

PROFILE_EPILOG = """
Writes cc-web conversations of growing size (default 10, 1,000, 10,000 and 100,000 messages;
a 100,000-message file is about 66 MB), and measures per size: the first call after the file
changed, calls on the unchanged file (median, p95), a tools/list round trip as the floor,
and for servers it starts the bytes read per repeated call and the peak memory (Linux). The
bundled reference is profiled beside it. Every call is checked against the reference core.
Budgets from spec/ccweb_spec/performance.yaml are advisory: a miss is a warning, never a failure.

examples:
  ccweb-conformance profile                                   the bundled reference alone
  ccweb-conformance profile --stdio "node examples/node-server/server.js"
  ccweb-conformance profile --stdio "node server.js" --sizes 100,1000,10000 --repeats 10
  ccweb-conformance profile --stdio "node server.js" --markdown "$GITHUB_STEP_SUMMARY" --svg profile.svg
  ccweb-conformance profile --url http://127.0.0.1:8765/mcp --sessions-dir ~/.cc-web/sessions --max-size 10000

exit codes: 0 profiled (advisory warnings allowed); 1 an answer differed from the reference
core or the implementation stopped answering; 2 usage error, or it could not be started or
reached, or a report could not be written; 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP
(servers stopped, files removed).
"""


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``profile`` command's description, epilog and options."""
    parser.description = "Profile an implementation on cc-web conversations of growing size, beside the reference."
    parser.epilog = PROFILE_EPILOG
    add_arguments(parser, "profile")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _interrupted(name: str | None, signum: int) -> int:
    print(f"ccweb-conformance: profile interrupted by {name}; servers stopped, files removed", file=sys.stderr)
    return interrupted_exit_code(signum)


def main(args: argparse.Namespace) -> int:
    """Profile, print the table, write the reports; 0 profiled, 1 a wrong answer, 2 start-up, 128 + a signal."""
    options = resolve(vars(args))
    settings = profile_settings(options)
    language = pick_language(options.lang)
    console = sys.stderr if any(is_stdout(path) for path in requested(options, "profile")) else sys.stdout
    try:
        with session("profile") as current:
            profile = run_profile(
                options,
                settings,
                workspace=current.workspace(options.sessions_dir),  # as run's: fixtures/workspace.py
                kit_version=kit_version(),
                spec_version=ccweb_spec.contract_version(),
                progress=_progress,
            )
            profile.config_file = getattr(args, "config_file", None)
            signals.disarm()  # the reports get written whatever arrives now
            with reader_may_leave(console):
                print(scrub(render_profile(profile, language), options.secrets()), file=console, flush=True)
            written = write_reports(profile, options, "profile", language=language)
    except RunInterrupted as interrupted:
        return _interrupted(interrupted.name, interrupted.signum)
    except TargetError as error:
        print(f"ccweb-conformance: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if current.state.signum is not None:  # it arrived while the results were printed or written: never a pass
        return _interrupted(current.state.name, current.state.signum)
    if profile.wrong:
        return EXIT_FAILED
    return EXIT_PASSED if written else EXIT_USAGE
