"""The process limit (RLIMIT_NPROC) told apart from a broken server: exact lines, and nothing for root or no limit."""

from __future__ import annotations

import resource
from collections.abc import Iterator

import pytest

from ccweb_conformance.errors import no_process_left
from ccweb_conformance.transport import limits

END = "this is the runner's environment, not the implementation: raise the process limit (ulimit -u) or free memory"


@pytest.fixture
def limited(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """A user (uid 1000) limited to 60 processes and threads, 55 of them running, the machine busier than that."""
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (60, 60))
    monkeypatch.setattr(limits.os, "getuid", lambda: 1000)
    monkeypatch.setattr(limits, "_system_tasks", lambda: 400)
    monkeypatch.setattr(limits, "tasks_of_user", lambda uid: 55)
    yield monkeypatch


def test_the_watchers_thread_is_refused_near_the_limit_as_cant_start_new_thread(limited: pytest.MonkeyPatch) -> None:
    with pytest.raises(RuntimeError) as raised:
        limits.check_thread_headroom(8, "the sessions directory's watcher")
    assert str(raised.value) == (
        "can't start new thread: 55 of the 60 processes and threads the user may have are running, "
        "the sessions directory's watcher needs 8 more"
    )
    limits.check_thread_headroom(5, "it")  # 55 + 5 fit under 60


def test_a_lost_server_near_the_limit_is_the_environment(limited: pytest.MonkeyPatch) -> None:
    assert limits.process_limit_problem(OSError("the server was killed by signal 9")) == (
        f"the runner and the servers it started reached the process limit (60 processes and threads, ulimit -u; "
        f"55 in use); {END}"
    )


def test_a_lost_server_that_said_so_or_a_thread_the_runner_missed_is_the_environment(
    limited: pytest.MonkeyPatch,
) -> None:
    limited.setattr(limits, "tasks_of_user", lambda uid: 20)  # far from the limit now: the server's tasks are gone
    assert limits.process_limit_problem(OSError("exited with code 1 at start-up; stderr: can't start new thread"))
    assert limits.process_limit_problem(OSError("the server was killed by signal 9")) is None
    noted = ["RuntimeError: can't start new thread"]  # what the run context noted
    assert limits.process_limit_problem(OSError("the server was killed by signal 9"), exhausted=noted) == (
        "the runner and the servers it started reached the process limit (60 processes and threads, ulimit -u; the "
        f"runner could not start a thread: RuntimeError: can't start new thread); {END}"
    )


def test_no_limit_or_root_is_never_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "tasks_of_user", lambda uid: 10**6)
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert limits.process_limit_problem(OSError("can't start new thread")) is None
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (60, 60))
    monkeypatch.setattr(limits.os, "getuid", lambda: 0)
    assert limits.process_limit_problem(OSError("can't start new thread")) is None
    limits.check_thread_headroom(8, "it")


def test_the_users_tasks_are_counted_from_proc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every thread of a process of the user, from its ``status`` file. The count is judged on one child with a
    known number of threads (the user's other processes start and end meanwhile, more so on a busy machine)."""
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = (
        "import sys, threading; stop = threading.Event()\n"
        "for _ in range(3): threading.Thread(target=stop.wait, daemon=True).start()\n"
        "print('ready', flush=True); sys.stdin.read()"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        scandir = os.scandir
        monkeypatch.setattr(
            limits.os, "scandir", lambda path: [e for e in scandir(path) if e.name in (str(child.pid), "self", "sys")]
        )
        assert limits.tasks_of_user(os.getuid()) == 4  # the main thread and three more
        assert limits.tasks_of_user(os.getuid() + 1) == 0
    finally:
        monkeypatch.undo()
        if child.stdin is not None:
            child.stdin.close()
        child.wait(60)


def test_only_a_thread_or_process_that_could_not_start_is_noted_as_the_limit() -> None:
    import errno  # noqa: PLC0415

    assert limits.no_thread_or_process(RuntimeError("can't start new thread"))
    assert limits.no_thread_or_process(no_process_left(OSError(errno.EAGAIN, "Resource temporarily unavailable")))
    assert limits.no_thread_or_process(OSError(errno.ENOMEM, "Cannot allocate memory"))
    assert not limits.no_thread_or_process(BlockingIOError(errno.EAGAIN, "would block"))
    assert not limits.no_thread_or_process(PermissionError(errno.EPERM, "Operation not permitted"))
    assert not limits.no_thread_or_process(RuntimeError("the server broke"))


def test_a_fork_that_failed_is_the_runners_environment_and_a_read_that_would_block_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``OSError(EAGAIN)`` is built as a BlockingIOError, a failed fork too: it was never the environment's."""
    import errno  # noqa: PLC0415
    import subprocess  # noqa: PLC0415

    from ccweb_conformance.errors import NoProcessLeft, environment_problem  # noqa: PLC0415
    from ccweb_conformance.transport.process import ServerProcess  # noqa: PLC0415

    def no_process_left_to_fork(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(subprocess, "Popen", no_process_left_to_fork)
    with pytest.raises(NoProcessLeft) as raised:
        ServerProcess(["server"], {}, stdio=True)
    assert environment_problem(raised.value) == (
        "the runner could not start a process or thread ([Errno 11] cannot start a process: Resource temporarily "
        "unavailable); "
        "this is the runner's environment, not the implementation: raise the process limit (ulimit -u) or free memory"
    )
    assert environment_problem(BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")) is None


@pytest.mark.parametrize(("limit", "lanes"), [(250, 1), (300, 1), (330, 2), (400, 4), (4_096, 4)])
def test_lanes_fit_below_the_limit_with_what_a_run_holds(
    monkeypatch: pytest.MonkeyPatch, limit: int, lanes: int
) -> None:
    """10 of the user's tasks running: a run of one lane may hold 256 at its peak, each lane more 32, 8 kept free
    (under ``ulimit -u 250`` four lanes stopped the default run at the limit where one lane passed)."""
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (limit, limit))
    monkeypatch.setattr(limits.os, "getuid", lambda: 1000)
    monkeypatch.setattr(limits, "_system_tasks", lambda: 5_000)
    monkeypatch.setattr(limits, "tasks_of_user", lambda uid: 10)
    assert limits.workers_allowed(4) == lanes
