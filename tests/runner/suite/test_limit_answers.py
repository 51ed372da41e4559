"""A server that cannot start a thread for want of processes answers an internal error (issue 45 item 7).

The process limit (RLIMIT_NPROC) counts every process and thread of the user: the runner's, its servers' and
the user's other work. Under it the bundled reference answered -32603 "Internal server error" (its tool call
starts a thread) and the scenario was charged to the implementation. Here the limit is simulated in process
(the tests may run as root, whom RLIMIT_NPROC never limits): a failed scenario is the runner's environment,
one line and exit 2, when the server said it could not start a thread or the user is at the limit; so is a
fork of the runner's fork server or a thread of its own that fails mid-scenario.
"""

from __future__ import annotations

import errno
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.errors import no_process_left
from ccweb_conformance.transport import limits

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
SCENARIO = "test_an_explicit_conversationid_wins_over_the_source_conversation"
ENDING = "this is the runner's environment, not the implementation: raise the process limit (ulimit -u) or free memory"
AT_500 = (
    "the runner and the servers it started reached the process limit (500 processes and threads, ulimit -u; 495 in use)"
)
"""The cause named when the user's other work holds 495 of a limit of 500."""


Run = Callable[[str], tuple[int, list[str]]]
"""Runs the selected scenario against the fake speaking ``words``: the exit code and the lines on stderr."""
Limit = Callable[..., None]
"""Sets what the runner sees of the process limit: the limit, the tasks on the system, the user's tasks."""


@pytest.fixture
def run_fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)

    def run(words: str) -> tuple[int, list[str]]:
        command = shlex.join([sys.executable, str(FAKE), words])
        code = main(["run", "--stdio", command, "--protocol", "legacy", "-k", SCENARIO])
        return code, capsys.readouterr().err.splitlines()

    return run


@pytest.fixture
def process_limit(monkeypatch: pytest.MonkeyPatch) -> Limit:
    def seen(limit: int, system_tasks: int | None, users_tasks: int | None = None) -> None:
        monkeypatch.setattr(limits, "_limit", lambda: limit)
        monkeypatch.setattr(limits, "_system_tasks", lambda: system_tasks)
        if users_tasks is not None:
            monkeypatch.setattr(limits, "tasks_of_user", lambda uid: users_tasks)

    return seen


def assert_the_runners_limit(code: int, lines: list[str], cause: str) -> None:
    """Exit 2, no scenario counted failed, and the last line names the limit's ``cause``."""
    assert code == 2, lines
    assert [line for line in lines if " failed" in line] == []
    assert lines[-1] == f"ccweb-conformance: error: {cause}; {ENDING}"


def test_a_server_saying_it_could_not_start_a_thread_is_the_runners_limit(
    run_fake: Run, process_limit: Limit
) -> None:
    process_limit(100_000, system_tasks=10)  # a limit, far from reached: only the server's words
    code, lines = run_fake("1=no-thread")
    assert_the_runners_limit(
        code,
        lines,
        "the runner and the servers it started reached the process limit (100000 processes and threads, ulimit -u;"
        " the server could not start a thread)",
    )


def test_an_internal_error_while_the_users_other_work_fills_the_limit_is_the_runners_limit(
    run_fake: Run, process_limit: Limit
) -> None:
    process_limit(500, system_tasks=None, users_tasks=495)  # the user's other processes leave 5
    code, lines = run_fake("1=internal")
    assert_the_runners_limit(code, lines, AT_500)


def test_without_a_limit_in_sight_an_internal_error_is_the_servers(run_fake: Run, process_limit: Limit) -> None:
    process_limit(100_000, system_tasks=10)
    code, lines = run_fake("1=internal")
    assert code == 1, lines
    assert [line for line in lines if " failed" in line] == ["ccweb-conformance: 1/1 scenarios, 1 failed"]


def _fail_from_the_second(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, error: BaseException) -> None:
    """``owner.name`` works once (the target's first server) and raises ``error`` after, as at the limit."""
    original = getattr(owner, name)
    calls = []

    def failing(*args: object, **kwargs: object) -> object:
        calls.append(name)
        if len(calls) > 1:
            raise error
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, failing)


@pytest.mark.parametrize(
    ("where", "error", "cause"),
    [
        (
            "fork server",
            no_process_left(OSError(errno.EAGAIN, "cannot fork: [Errno 11] Resource temporarily unavailable")),
            "the runner could not start a process or thread ([Errno 11] cannot start a process: cannot fork: "
            "[Errno 11] Resource temporarily unavailable)",
        ),
        ("reader thread", RuntimeError("can't start new thread"), "the runner could not start a thread (can't start "
         "new thread)"),
    ],
)  # fmt: skip
def test_the_runners_own_fork_or_thread_failing_mid_scenario_is_exit_2(
    where: str, error: BaseException, cause: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scenario with a source binding needs a second server: its fork (the bundled reference's fork server) or
    the thread reading it fails, as at RLIMIT_NPROC, whatever the user's other work is."""
    from ccweb_conformance.transport import lines, zygote_client  # noqa: PLC0415

    if where == "fork server":
        _fail_from_the_second(monkeypatch, zygote_client.Zygote, "spawn", error)
    else:
        _fail_from_the_second(monkeypatch, lines, "QueueReader", error)
    code = main(["run", "--protocol", "legacy", "-k", SCENARIO])
    assert_the_runners_limit(code, capsys.readouterr().err.splitlines(), cause)


FUZZ_AT_THE_LIMIT = """
import sys
sys.path.insert(0, "tests")
from mutants.catalogue import MUTANTS
from ccweb_conformance.transport import limits
MUTANTS["utf16_units"].apply()  # the fuzz phase finds it; the scenario selected (TOOL-1) passes
if sys.argv[1] == "at-limit":  # the user's other work leaves 5 of 500 processes
    limits._limit = lambda: 500
    limits._system_tasks = lambda: None
    limits.tasks_of_user = lambda uid: 495
from ccweb_conformance.cli import main
sys.exit(main(["run", "--in-process", "--tags", "TOOL-1", "--fuzz", "20"]))
"""


@pytest.mark.slow
@pytest.mark.parametrize(("where", "code"), [("at-limit", 2), ("no-limit", 1)])
def test_a_fuzz_difference_at_the_users_process_limit_is_the_runners_limit(where: str, code: int) -> None:
    """The fuzz phase is judged as a scenario is: a difference found while the user's processes fill the limit is
    the runner's environment (exit 2, one line), not the implementation's failure; without a limit it fails it."""
    repo = Path(__file__).parents[3]
    done = subprocess.run(
        [sys.executable, "-c", FUZZ_AT_THE_LIMIT, where], cwd=repo, capture_output=True, text=True, timeout=600,
        check=False,
    )
    assert done.returncode == code, done.stderr[-2000:]
    limit_line = [line for line in done.stderr.splitlines() if "reached the process limit" in line]
    assert limit_line == ([f"ccweb-conformance: error: {AT_500}; {ENDING}"] if code == 2 else [])
