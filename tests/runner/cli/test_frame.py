"""The frame of run, profile and export (``commands/frame.py``): the console, the interrupt line, the exit code."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from ccweb_conformance.commands.frame import Frame, console_for, framed
from ccweb_conformance.errors import RunInterrupted, TargetError
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.values import resolve_values


@pytest.mark.parametrize(
    ("command", "options", "stream"),
    [
        ("run", RunnerOptions(), "stdout"),
        ("run", RunnerOptions(json=Path("-")), "stderr"),
        ("run", RunnerOptions(markdown=Path("-")), "stderr"),
        ("profile", RunnerOptions(svg=Path("-")), "stderr"),
        ("run", RunnerOptions(svg=Path("-")), "stdout"),  # run writes no SVG: stdout stays the console
        ("list", RunnerOptions(json=Path("-")), "stderr"),
    ],
)
def test_the_console_leaves_stdout_to_a_report(command: str, options: RunnerOptions, stream: str) -> None:
    assert console_for(resolve_values(options).reports, command) is getattr(sys, stream)


@pytest.mark.parametrize(
    ("failed", "written", "code"), [(False, True, 0), (True, True, 1), (False, False, 2), (True, False, 1)]
)
def test_the_exit_code_without_a_signal(failed: bool, written: bool, code: int, capsys) -> None:
    def work(frame: Frame) -> int:
        return frame.exit_code(failed=failed, written=written)

    assert framed("profile", resolve_values(RunnerOptions()), work, interrupted_detail="x") == code
    assert capsys.readouterr().err == ""


def test_a_signal_recorded_wins_over_a_failure_and_is_said_once(capsys) -> None:
    def work(frame: Frame) -> int:
        frame.settle()
        frame.state.signum, frame.state.name = int(signal.SIGTERM), "SIGTERM"
        return frame.exit_code(failed=True, detail="3 scenarios not run")

    assert framed("run", resolve_values(RunnerOptions()), work, interrupted_detail="nothing was reported") == 143
    assert capsys.readouterr().err == "ccweb-conformance: interrupted by SIGTERM; 3 scenarios not run\n"


def test_a_signal_raised_names_the_command_and_what_became_of_the_work(capsys) -> None:
    def work(frame: Frame) -> int:
        raise RunInterrupted(int(signal.SIGHUP), "SIGHUP")

    assert framed("export", resolve_values(RunnerOptions()), work, interrupted_detail="nothing written") == 129
    assert capsys.readouterr().err == "ccweb-conformance: export interrupted by SIGHUP; nothing written\n"


def test_a_target_that_cannot_start_is_one_line_and_2(capsys) -> None:
    def work(frame: Frame) -> int:
        raise TargetError("the server exited before it answered (exit code 3)")

    assert framed("profile", resolve_values(RunnerOptions()), work, interrupted_detail="x") == 2
    assert capsys.readouterr().err == (
        "ccweb-conformance: error: the server exited before it answered (exit code 3)\n"
    )


def test_the_sessions_folder_is_gone_after_the_frame(capsys) -> None:
    made: list[Path] = []

    def work(frame: Frame) -> int:
        made.append(frame.session.temporary_directory())
        return 0

    assert framed("profile", resolve_values(RunnerOptions()), work, interrupted_detail="x") == 0
    assert made and not made[0].exists()
