"""The console is the reader's: one that stops reading (``| head``) or was never there (``>&-``)
changes neither the verdict nor the reports.

Each run is a real process. "The reader left" is made deterministic by closing the pipe's
reading end before the runner writes anything to stdout (its progress goes to stderr), so
every console write meets a broken pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from paths import TESTS

PYTHON = sys.executable
BOUND = 120.0
"""Seconds a run may take before the test calls it hung (a guard, not a speed check)."""
PASSING = ["run", "--in-process", "--tags", "AC-3", "--fuzz", "0"]
MUTANT_RUN = [PYTHON, str(TESTS / "mutants" / "run.py"), "mutant", "newest_first"]


def _cli(*words: str) -> list[str]:
    return [PYTHON, "-m", "ccweb_conformance.cli", *words]


def _reader_leaves_at_once(command: list[str], cwd: Path) -> tuple[int, str]:
    """Run ``command`` with stdout a pipe nobody reads (closed at once); its exit code and stderr."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    try:
        err = process.stderr.read()
        process.wait(BOUND)
    finally:
        process.kill()
        process.wait()
        process.stderr.close()
    return process.returncode, err.decode()


def _json_counts(path: Path) -> tuple[int, int]:
    counts = json.loads(path.read_text(encoding="utf-8"))["counts"]
    return counts["passed"], counts["failed"]


def test_a_passed_run_whose_reader_left_exits_0_and_writes_its_report(tmp_path: Path) -> None:
    code, err = _reader_leaves_at_once(_cli(*PASSING, "--json", "report.json"), tmp_path)
    assert (code, "Traceback" in err, "BrokenPipe" in err) == (0, False, False)
    assert _json_counts(tmp_path / "report.json") == (5, 0)


def test_a_failed_run_whose_reader_left_still_exits_1(tmp_path: Path) -> None:
    code, err = _reader_leaves_at_once([*MUTANT_RUN, *PASSING, "--json", "report.json"], tmp_path)
    assert (code, "Traceback" in err) == (1, False)
    passed, failed = _json_counts(tmp_path / "report.json")
    assert failed > 0 and passed + failed == 5


def test_a_profile_whose_reader_left_writes_its_report(tmp_path: Path) -> None:
    command = _cli("profile", "--sizes", "10", "--repeats", "1", "--settle", "0", "--no-reference", "--json", "p.json")
    code, err = _reader_leaves_at_once(command, tmp_path)
    assert (code, "Traceback" in err) == (0, False)
    assert json.loads((tmp_path / "p.json").read_text(encoding="utf-8"))["sizes"] == [10]


def _run_with_closed(closer: str, report: Path, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """A passing run started by ``sh`` after ``closer`` (``exec 1>&-`` ...) closed its streams."""
    script = f'{closer}; exec "$@"'
    return subprocess.run(
        ["sh", "-c", script, "sh", *_cli(*PASSING, "--json", str(report))],
        cwd=cwd,
        capture_output=True,
        timeout=BOUND,
        check=False,
    )


def test_closed_standard_streams_are_no_console_and_no_traceback(tmp_path: Path) -> None:
    closers = {"stdout": "exec 1>&-", "stderr": "exec 2>&-", "stdin": "exec 0<&-", "all three": "exec 0<&- 1>&- 2>&-"}
    reports = {name: tmp_path / f"{name.replace(' ', '-')}.json" for name in closers}
    with ThreadPoolExecutor(max_workers=len(closers)) as pool:  # four runs side by side: each mostly waits
        runs = {name: pool.submit(_run_with_closed, shell, reports[name], tmp_path) for name, shell in closers.items()}
    for name, run in runs.items():
        done = run.result()
        assert (name, done.returncode, b"Traceback" in done.stderr) == (name, 0, False)
        assert _json_counts(reports[name]) == (5, 0)

