"""``ccweb-conformance profile``: the handler the command line calls, and its exit codes."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import ccweb_spec
from ccweb_conformance.errors import TargetError, UsageError
from ccweb_conformance.options import RunnerOptions, from_values
from ccweb_conformance.profile.console import render_profile
from ccweb_conformance.profile.json_report import write_profile_json
from ccweb_conformance.profile.markdown import write_profile_markdown
from ccweb_conformance.profile.options import profile_settings
from ccweb_conformance.profile.run import run_profile
from ccweb_conformance.profile.svg import write_profile_svg

EXIT_OK, EXIT_WRONG, EXIT_USAGE = 0, 1, 2
EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


class Interrupted(BaseException):
    """A signal ended the profile; ``code`` is the exit code it asks for."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextmanager
def signals_interrupt() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` (once; a second one waits for the clean-up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(number: int, frame: FrameType | None) -> None:
        del frame
        for sig in EXIT_SIGNAL:
            signal.signal(sig, signal.SIG_IGN)
        raise Interrupted(EXIT_SIGNAL[signal.Signals(number)])

    previous = {sig: signal.signal(sig, handler) for sig in EXIT_SIGNAL}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def runner_options(args: argparse.Namespace) -> RunnerOptions:
    """The target the options describe (the same target options as ``run``)."""
    options = from_values(vars(args), groups=("target", "binding"))
    problems = options.problems()
    if problems:
        raise UsageError(problems[0])
    return options


def profile_command(args: argparse.Namespace, *, kit_version: str) -> int:
    """Profile, print the table, write the reports; 0 profiled, 1 a wrong answer, 2 start-up, 130/143 signals."""
    options = runner_options(args)
    settings = profile_settings(args)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        with signals_interrupt():
            profile = run_profile(
                options,
                settings,
                kit_version=kit_version,
                spec_version=ccweb_spec.contract_version(),
                progress=progress,
            )
    except Interrupted as interrupted:
        print("ccweb-conformance: profile interrupted; servers stopped, files removed", file=sys.stderr)
        return interrupted.code
    except TargetError as error:
        print(f"ccweb-conformance: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(render_profile(profile), flush=True)
    if settings.json is not None:
        write_profile_json(profile, settings.json)
    if settings.markdown is not None:
        write_profile_markdown(profile, settings.markdown)
    if settings.svg is not None:
        write_profile_svg(profile, settings.svg)
    return EXIT_WRONG if profile.wrong else EXIT_OK
