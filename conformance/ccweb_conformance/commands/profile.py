"""``ccweb-conformance profile``: how an implementation's cost grows with the conversation, on the shared session."""

from __future__ import annotations

import argparse
import sys

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.commands.frame import Frame, framed
from ccweb_conformance.options import add_arguments, resolve
from ccweb_conformance.profile.console import render_profile
from ccweb_conformance.profile.settings import profile_settings
from ccweb_conformance.profile.whole_profile import run_profile
from ccweb_conformance.values import resolve_values

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


def main(args: argparse.Namespace) -> int:
    """Profile, write the reports, print the table; 0 profiled, 1 a wrong answer, 2 start-up, 128 + a signal."""
    options = resolve(vars(args))
    settings = profile_settings(options)
    values = resolve_values(options)
    config_file = getattr(args, "config_file", None)

    def work(frame: Frame) -> int:
        profile = run_profile(
            values.target,
            settings,
            workspace=frame.session.workspace(values.target.sessions_dir),  # as run's: fixtures/workspace.py
            run=frame.context,
            kit_version=kit_version(),
            spec_version=ccweb_spec.contract_version(),
            progress=_progress,
        )
        profile.config_file = config_file
        profile = frame.redacted(profile)  # before the reports and the console render it
        frame.settle()
        written = frame.write_reports(profile)
        frame.show(render_profile(profile, frame.language))
        return frame.exit_code(failed=bool(profile.wrong), written=written)

    return framed("profile", values, work, interrupted_detail="servers stopped, files removed")
