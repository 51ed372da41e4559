"""A server that cannot start a thread for want of processes answers an internal error (issue 45 item 7).

The process limit (RLIMIT_NPROC) counts every process and thread of the user: the runner's, its servers' and
the user's other work. Under it the bundled reference answered -32603 "Internal server error" (its tool call
starts a thread) and the scenario was charged to the implementation. Here the limit is simulated in process
(the tests may run as root, whom RLIMIT_NPROC never limits): a failed scenario is the runner's environment,
one line and exit 2, when the server said it could not start a thread or the user is at the limit.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.transport import limits

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
SCENARIO = "test_an_explicit_conversationid_wins_over_the_source_conversation"
ENDING = "this is the runner's environment, not the implementation: raise the process limit (ulimit -u) or free memory"


def _run(
    words: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, list[str]]:
    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    command = shlex.join([sys.executable, str(FAKE), words])
    code = main(["run", "--stdio", command, "--protocol", "legacy", "-k", SCENARIO])
    return code, capsys.readouterr().err.splitlines()


def test_a_server_saying_it_could_not_start_a_thread_is_the_runners_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(limits, "_limit", lambda: 100_000)  # a limit, far from reached: only the server's words
    monkeypatch.setattr(limits, "_system_tasks", lambda: 10)
    code, lines = _run("1=no-thread", tmp_path, monkeypatch, capsys)
    assert code == 2, lines
    assert [line for line in lines if " failed" in line] == []
    assert lines[-1] == (
        "ccweb-conformance: error: the runner and the servers it started reached the process limit (100000 processes "
        f"and threads, ulimit -u; the server could not start a thread); {ENDING}"
    )


def test_an_internal_error_while_the_users_other_work_fills_the_limit_is_the_runners_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(limits, "_limit", lambda: 500)
    monkeypatch.setattr(limits, "_system_tasks", lambda: None)
    monkeypatch.setattr(limits, "tasks_of_user", lambda uid: 495)  # the user's other processes leave 5
    code, lines = _run("1=internal", tmp_path, monkeypatch, capsys)
    assert code == 2, lines
    assert [line for line in lines if " failed" in line] == []
    assert lines[-1] == (
        "ccweb-conformance: error: the runner and the servers it started reached the process limit (500 processes "
        f"and threads, ulimit -u; 495 in use); {ENDING}"
    )


def test_without_a_limit_in_sight_an_internal_error_is_the_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(limits, "_limit", lambda: 100_000)
    monkeypatch.setattr(limits, "_system_tasks", lambda: 10)
    code, lines = _run("1=internal", tmp_path, monkeypatch, capsys)
    assert code == 1, lines
    assert [line for line in lines if " failed" in line] == ["ccweb-conformance: 1/1 scenarios, 1 failed"]
