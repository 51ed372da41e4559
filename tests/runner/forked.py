"""Work forked from one process that imported the kit once, a few children at a time (as ``tests/mutants/run.py``'s
batch does): the interpreter's start and the imports are paid once, not per run; each child applies its own mutant.

:func:`import_the_kit` and :func:`each_in_a_child` run in that process; :func:`run_as_group` starts it from a test, in
a session of its own, so that a time-out stops its children too."""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

BEFORE_FORKING = (
    "ccweb_conformance.cli", "ccweb_conformance.transport.inprocess", "ccweb_reference.server", "pytest_bdd"
)
"""What every child imports. Not pytest-bdd's plugin nor the kit's: pytest rewrites the asserts of a module that
``-p`` names only if it imports it first (else it warns, and the warning shows in the run's summary)."""


def import_the_kit() -> None:
    """Before forking: import what every child needs, and read and bind the suite once."""
    from mutants.run import _bind_the_suite_once  # noqa: PLC0415 (only in the process that forks)

    for name in BEFORE_FORKING:
        importlib.import_module(name)
    _bind_the_suite_once()


def _child(name: str, work: Callable[[str], int], out_dir: Path) -> int:
    """In a forked child: its standard output to ``OUT_DIR/NAME.out``, its standard error to ``NAME.err``, then
    ``work(name)``."""
    try:
        for fd, suffix in ((1, "out"), (2, "err")):
            stream = os.open(out_dir / f"{name}.{suffix}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(stream, fd)
            os.close(stream)
        return work(name)
    except BaseException as exc:
        print(f"forked: {name} crashed: {exc!r}", file=sys.stderr)
        return 3
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def each_in_a_child(
    names: Sequence[str], work: Callable[[str], int], out_dir: Path, at_a_time: int = 2
) -> dict[str, int]:
    """``work(name)`` for each name in a forked child, ``at_a_time`` at once; each child's exit code."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    codes: dict[str, int] = {}
    pending, running = list(names), dict[int, str]()
    while pending or running:
        while pending and len(running) < at_a_time:
            name = pending.pop(0)
            pid = os.fork()
            if pid == 0:  # the child: never back into this loop, whatever happens
                code = 3
                try:
                    code = _child(name, work, out_dir)
                finally:
                    os._exit(code)
            running[pid] = name
        pid, status = os.wait()
        codes[running.pop(pid)] = os.waitstatus_to_exitcode(status)
    return codes


def run_as_group(command: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a session of its own; on a time-out (or an interrupt) its whole process group is stopped,
    forked children included, and the exception raised again."""
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except BaseException:  # a time-out, or the test session interrupted: the forked children too
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)
