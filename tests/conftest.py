"""Fixtures shared by the reference's own tests: starting reference server processes.

With ``CCWEB_TEST_CPU_LOG=FILE`` every test (its fixtures' set-up included) appends one JSON line
to FILE: its node ID, wall seconds and CPU seconds (the test process's own and its waited-for
children's). A test whose wall time far exceeds its CPU time waits; one heavy in CPU loads the
machine: the figures the test loop's budget is kept with (CONTRIBUTING.md, BENCHMARKS.md).
"""

from __future__ import annotations

import json
import os
import queue
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from served import accepting

StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]
CACHE_ENV = "CCWEB_CONFORMANCE_CACHE_DIR"


def _keep_ignoring_but_let_children_hear(signum: int, frame: FrameType | None) -> None:
    """A handler that does nothing: the suite still ignores the signal, and a process it starts hears it."""
    del signum, frame


def _signals_reach_the_runs_started() -> None:
    """Started as a background job (SIGINT ignored) or under ``nohup`` (SIGHUP ignored), the suite would pass
    the ignoring on to every runner it starts, and a runner keeps ignoring what it was started ignoring; the
    gate cases that signal a run mid-way would then see it finish. A handler, unlike SIG_IGN, is reset when a
    child process starts, so the suite keeps ignoring the signal and its runs hear it."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_IGN:
            signal.signal(signum, _keep_ignoring_but_let_children_hear)


def pytest_configure(config: pytest.Config) -> None:
    """Signals reach the runs the suite starts; the xdist controller rewrites the test modules' asserts once for
    its workers (``rewritten_asserts.py``); runs of the CLI keep their --last-failed record in a folder of the test
    session, not in the checkout."""
    _signals_reach_the_runs_started()
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):  # the xdist controller
        from rewritten_asserts import write_rewritten  # noqa: PLC0415

        write_rewritten(config)
    if CACHE_ENV in os.environ:  # an xdist worker: the controller's folder, inherited
        return
    folder = tempfile.mkdtemp(prefix="ccweb-test-cache-")
    os.environ[CACHE_ENV] = folder

    def clean_up() -> None:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(CACHE_ENV, None)

    config.add_cleanup(clean_up)


WAITING_SHARE_WORKERS = 3
"""Workers ``-n auto`` adds beyond one per usable CPU: see :func:`pytest_xdist_auto_num_workers`."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (the README's test command): one worker per CPU this process may use, plus three.

    A good part of a worker's time is spent waiting, not computing: the contract's own windows (D-14's
    200 ms re-reads, the read-only settle delays), servers and runners starting, signals timed to a run's
    progress. With one worker per core a core idles meanwhile; with one more the cores were still idle a
    fifth of the run; with three more they are busy to the end (BENCHMARKS.md, "The test loop", session 18).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when it is set (xdist's own rule)."""
    del config
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    # macOS has no CPU affinity: every CPU is usable there
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return usable + WAITING_SHARE_WORKERS


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist loadfile`` (the README's test command) with the mutant and variant batches split: each part of a
    batch file is a scope of its own (``mutants/batches.py``), so the parts run on different workers; every other
    test goes with its file, as loadfile sends it. The longest files are sent first (``scheduling.py``), so that
    none is left to end the session alone on one worker. Other ``--dist`` modes are xdist's own."""
    if config.getvalue("dist") != "loadfile":
        return None
    from mutants.batches import scope  # noqa: PLC0415
    from scheduling import listed_longest, longest_first  # noqa: PLC0415
    from xdist.scheduler import LoadFileScheduling  # noqa: PLC0415 (only where xdist distributes)

    listed = listed_longest()

    class _BatchPartsApart(LoadFileScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self.ordered:  # the first assignment: the queue holds every scope
                order = longest_first(list(self.workqueue), listed)
                self.workqueue = OrderedDict((unit, self.workqueue[unit]) for unit in order)
                self.ordered = True
            super()._assign_work_unit(node)

    return _BatchPartsApart(config, log)  # type: ignore[arg-type]


CPU_LOG = os.environ.get("CCWEB_TEST_CPU_LOG")


def _cpu() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """Log the test's wall and CPU seconds when ``CCWEB_TEST_CPU_LOG`` names a file."""
    if not CPU_LOG:
        return (yield)
    started, (own, children) = time.monotonic(), _cpu()
    try:
        return (yield)
    finally:
        now_own, now_children = _cpu()
        line = {
            "test": item.nodeid,
            "wall": round(time.monotonic() - started, 3),
            "cpu": round(now_own - own, 3),
            "children": round(now_children - children, 3),
        }
        with open(CPU_LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


def _served_url(process: subprocess.Popen[bytes], timeout: float = 60.0) -> str:
    """The URL from the server's first stderr line, once it accepts connections."""
    assert process.stderr is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(
        target=lambda: lines.put(process.stderr.readline() if process.stderr else b""), daemon=True
    ).start()
    try:
        line = lines.get(timeout=timeout).decode()
    except queue.Empty:
        raise RuntimeError(f"the reference server printed no URL within {timeout}s") from None
    match = re.fullmatch(r"ccweb-reference: serving (http://127\.0\.0\.1:(\d+)/mcp)\n", line)
    if match is None:
        raise RuntimeError(f"unexpected first stderr line {line!r} (exit code {process.poll()})")
    if accepting(int(match.group(2)), process, time.monotonic() + timeout):  # the line comes after bind
        return match.group(1)
    raise RuntimeError(f"the reference server did not accept connections (exit code {process.poll()})")


@pytest.fixture(scope="module")
def start_server() -> Iterator[StartServer]:
    """``start(sessions_dir, *args, http=False, source=None)`` -> (process, base URL or None).

    Over stdio ``source`` becomes CCWEB_SESSION_ID (absent when None); over HTTP the
    server is asked for ``--port 0`` and the URL comes from the line it prints. Every
    process is stopped when the module ends.
    """
    processes: list[subprocess.Popen[bytes]] = []

    def start(
        sessions_dir: Path, *args: str, http: bool = False, source: str | None = None
    ) -> tuple[subprocess.Popen[bytes], str | None]:
        env = {k: v for k, v in os.environ.items() if k not in {"CCWEB_SESSION_ID", "CC_WEB_SESSIONS_DIR"}}
        if source is not None:
            env["CCWEB_SESSION_ID"] = source
        command = [sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", str(sessions_dir), *args]
        if http:
            command += ["--http", "--port", "0"]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        processes.append(process)
        return process, _served_url(process) if http else None

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
