"""Work forked from one process that imported the kit once, a few children at a time (``tests/mutants/run.py``'s
batch and the tests' batches of whole runs): the interpreter's start and the imports are paid once, not per run;
each child applies its own mutant.

:func:`import_the_kit` and :func:`each_in_a_child` run in that process; :func:`run_as_group` starts it from a test, in
a session of its own, so that a time-out stops its children too."""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

BEFORE_FORKING = (
    "ccweb_conformance.cli",
    "ccweb_conformance.transport.inprocess",
    "ccweb_reference.server",
    "pytest_bdd",
    "ccweb_conformance.reports.json_report",
    "ccweb_conformance.reports.redact",
    "anyio._backends._asyncio",
)
"""What every child imports (the last three: what a run with ``--json`` against the in-process reference imports
only when it gets there). Not pytest-bdd's plugin nor the kit's: pytest rewrites the asserts of a module that
``-p`` names only if it imports it first (else it warns, and the warning shows in the run's summary)."""


def import_the_kit() -> None:
    """Before forking: import what every child needs, and read and bind the suite once."""
    for name in BEFORE_FORKING:
        importlib.import_module(name)
    _bind_the_suite_once()


def _bind_the_suite_once() -> None:
    """Collect the suite once, before forking (``run --co``: nothing is started): each child then finds the step
    modules imported and registered, and the features parsed, as a second run in one process does; and the tables
    every report reads."""
    from ccweb_conformance.cli import main as conformance  # noqa: PLC0415

    with open(os.devnull, "w", encoding="utf-8") as nowhere, contextlib.redirect_stdout(nowhere):
        code = conformance(["run", "--in-process", "--co"])
    if code != 0 or "ccweb_conformance.suite.steps.given_steps" not in sys.modules:
        raise RuntimeError(f"forked: the suite could not be collected before forking (exit {code})")
    from ccweb_conformance import i18n  # noqa: PLC0415
    from ccweb_conformance.reports.hints import hints  # noqa: PLC0415

    hints()  # the tables a report with a failure reads, each read once per process: read before forking
    i18n.terms()
    for language in i18n.LANGUAGES:
        i18n.locale_messages(language)
        for kind in ("checks", "expected"):
            i18n.translated("", language, kind)
    _match_every_step_once()
    _declared_validator_of_the_reference()


def _match_every_step_once() -> None:
    """Every step text of the suite matched to its definitions in the registry's own record of what it matched, as
    the first run in a process does: each child then finds them matched (a registration empties the record)."""
    from ccweb_conformance.engine.registry import STEPS  # noqa: PLC0415
    from ccweb_conformance.suite.scenario_index import bundled_features  # noqa: PLC0415

    for feature in bundled_features():
        for scenario in feature.runnable:
            for step in scenario.steps:
                if step.kind is not None:
                    STEPS.matches(step.kind, step.text)


def _declared_validator_of_the_reference() -> None:
    """The validator of the outputSchema the reference declares, made once per schema text and kept by it, made
    here: a child serving another schema makes its own."""
    import ccweb_spec  # noqa: PLC0415
    from ccweb_conformance.checks.outcome import _declared_validator, declared_schema_text  # noqa: PLC0415

    _declared_validator(declared_schema_text(ccweb_spec.tool_definition()["outputSchema"]))


STREAMS = ("out", "err")
"""The suffixes of a child's standard output and standard error files; one suffix twice: one file for both."""


def _child(name: str, work: Callable[[str], int], out_dir: Path, streams: tuple[str, str]) -> int:
    """In a forked child: its standard output to ``OUT_DIR/NAME.<streams[0]>``, its standard error to
    ``NAME.<streams[1]>`` (one file, opened once, when the suffixes are the same), then ``work(name)``."""
    try:
        opened: dict[str, int] = {}
        for fd, suffix in zip((1, 2), streams, strict=True):
            if suffix not in opened:
                opened[suffix] = os.open(out_dir / f"{name}.{suffix}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(opened[suffix], fd)
        for stream in opened.values():
            os.close(stream)
        return work(name)
    except BaseException as exc:
        print(f"forked: {name} crashed: {exc!r}", file=sys.stderr)
        return 3
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def each_in_a_child(
    names: Sequence[str],
    work: Callable[[str], int],
    out_dir: Path,
    at_a_time: int = 2,
    *,
    streams: tuple[str, str] = STREAMS,
    ended: Callable[[str, int, float], None] | None = None,
    bound: float | None = None,
) -> dict[str, int]:
    """``work(name)`` for each name in a forked child, in order, ``at_a_time`` at once; each child's exit code.

    ``ended(name, code, seconds)``, if given, is called in this process as each child ends (its wall seconds from
    its fork). A child still running ``bound`` seconds after its fork, if given, is killed (SIGKILL: exit -9)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    codes: dict[str, int] = {}
    pending, running = list(names), dict[int, tuple[str, float]]()
    while pending or running:
        while pending and len(running) < at_a_time:
            name = pending.pop(0)
            pid = os.fork()
            if pid == 0:  # the child: never back into this loop, whatever happens
                code = 3
                try:
                    code = _child(name, work, out_dir, streams)
                finally:
                    os._exit(code)
            running[pid] = (name, time.perf_counter())
        pid, status = os.wait() if bound is None else _next_to_end(running, bound)
        name, started = running.pop(pid)
        codes[name] = os.waitstatus_to_exitcode(status)
        if ended is not None:
            ended(name, codes[name], time.perf_counter() - started)
    return codes


def _next_to_end(running: dict[int, tuple[str, float]], bound: float) -> tuple[int, int]:
    """The next child to end, as :func:`os.wait`; meanwhile a child running past ``bound`` seconds is killed."""
    while True:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            return pid, status
        now = time.perf_counter()
        for child, (_, started) in running.items():
            if now - started > bound:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child, signal.SIGKILL)
        time.sleep(0.05)


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
