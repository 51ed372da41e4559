"""``ccweb-conformance profile``: how an implementation's cost grows with the conversation, on the shared session."""

from __future__ import annotations

import argparse
import sys

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.commands.frame import Frame, framed
from ccweb_conformance.options import resolve
from ccweb_conformance.profile.console import render_profile
from ccweb_conformance.profile.settings import profile_settings
from ccweb_conformance.profile.whole_profile import run_profile
from ccweb_conformance.values import resolve_values


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``profile`` command's description."""
    parser.description = "Profile an implementation on cc-web conversations of growing size, beside the reference."


def main(args: argparse.Namespace) -> int:
    """Profile, write the reports, print the table; 0 profiled, 1 a wrong answer, 2 start-up, 128 + a signal."""
    options = resolve(vars(args))
    settings = profile_settings(options)
    values = resolve_values(options)

    def work(frame: Frame) -> int:
        profile = run_profile(
            values.target,
            settings,
            workspace=frame.session.workspace(values.target.sessions_dir),  # as run's: fixtures/workspace.py
            run=frame.context,
            kit_version=kit_version(),
            spec_version=ccweb_spec.contract_version(),
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
        profile.config_file = getattr(args, "config_file", None)
        profile = frame.redacted(profile)  # before the reports and the console render it
        frame.settle()
        written = frame.write_reports(profile)
        frame.show(render_profile(profile, frame.language))
        return frame.exit_code(failed=bool(profile.wrong), written=written)

    return framed("profile", values, work, interrupted_detail="servers stopped, files removed")
