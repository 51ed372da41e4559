"""Whole ``ccweb-conformance run`` invocations against misbehaving servers (tests/runner/fakes/suite_*.py).

Each run is a subprocess with a hard timeout and selects the 13 AC-8 scenarios, which make
one tools/call each, one after another (``--jobs 1``: under lanes the calls of several scenarios interleave, and
no call number belongs to one scenario), so the fakes' call N belongs to scenario N. For every run: the exit
code ``errors.py`` names, the affected scenarios fail with a clear message while the others
pass (later ones against a restarted process), no process the run started is left, and
nothing is left in the run's TMPDIR (its ``ccweb-conformance-*`` folders). Several faults
share one run to keep the module fast; the runs go in parallel.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from runner.process_state import ended

FAKES = Path(__file__).parent / "fakes"
PYTHON = sys.executable
RUN_BOUND = 150.0
"""Seconds a run may take before the test calls it hung (a guard, not a speed check)."""
SCENARIOS = 13
STDERR = "\nlast lines of the server's stderr:\n"


def stdio_args(*words: str) -> list[str]:
    return ["--stdio", stdio_command(*words)]


def stdio_command(*words: str) -> str:
    return shlex.join([PYTHON, str(FAKES / "suite_stdio.py"), *words])


def http_command(*words: str) -> str:
    return shlex.join([PYTHON, str(FAKES / "suite_http.py")]) + " {port} " + shlex.join(words)


def http_args(*words: str) -> list[str]:
    return ["--http-cmd", http_command(*words), "--url", "http://127.0.0.1:{port}/mcp"]


@dataclass(frozen=True)
class Case:
    """One misbehaving server and what the run must make of it."""

    target: list[str]
    code: int
    failures: dict[int, list[str]] = field(default_factory=dict)
    """Scenario number (1-based) -> text its failure message contains; every other one passes."""
    processes: int = 1
    timeout: str = "10"
    startup_error: tuple[str, str] | None = None
    """Start and end of the one stderr line of a run that never got to its scenarios."""


CASES: dict[str, Case] = {
    "stdio-exits-at-start-up": Case(
        stdio_args("exit"),
        2,
        startup_error=(
            f"ccweb-conformance: error: stdio server {stdio_command('exit')!r}: could not negotiate MCP: "
            "the process exited with code 3 at start-up; stderr: fatal: cannot open the configuration file",
            "",
        ),
    ),
    "stdio-crash-wrong-id-garbage-twice": Case(
        stdio_args("2=crash", "4=wrong-id", "6=garbage", "8=twice"),
        1,
        {
            2: [
                "tools/call: the server stopped in the middle of a line (the server exited with code 9): "
                '\'{"jsonrpc":"2.0","id":4,"result":',
                STDERR + "suite fake: crashing on call 2",
            ],
            4: ["tools/call: a response with id 103 while waiting for id 3"],
            6: ["tools/call: the server wrote a line that is not JSON: 'this is not JSON\\n'"],
            # the second answer to call 8 is read while waiting for call 9's
            9: ["tools/call: a second response to request id 3"],
        },
        processes=5,
    ),
    # A restarted server's start-up counts against the per-request timeout; 3 s (not 1) keeps
    # that from failing the scenarios after the hang on a loaded machine.
    "stdio-hangs": Case(
        stdio_args("2=hang"),
        1,
        {2: ["tools/call: no response within 3 s" + STDERR + "suite fake: hanging on call 2"]},
        processes=2,
        timeout="3",
    ),
    "stdio-slow-split-line-10-mb-stderr-flood": Case(
        stdio_args("slow=0.3", "3=split", "5=big", "flood"), 0, {}, processes=1
    ),
    "http-exits-at-start-up": Case(
        http_args("exit"),
        2,
        startup_error=(
            f"ccweb-conformance: error: HTTP server '{shlex.join([PYTHON, str(FAKES / 'suite_http.py')])} ",
            "/mcp: the process exited with code 4 at start-up; output: fatal: port already taken; hint: the server "
            "stopped before answering initialize: run its command by hand to see why (its last output is quoted "
            "above); a missing build step, dependency or environment variable is the usual cause",
        ),
    ),
    "http-500-wrong-content-type-sse": Case(
        http_args("sse", "2=500", "4=ctype"),
        1,
        {
            2: ["tools/call: HTTP 500 Internal Server Error: 'internal trouble'"],
            4: ["tools/call: HTTP 200 with Content-Type 'text/html', not JSON or SSE"],
        },
    ),
}


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    report: dict[str, Any] | None
    pids: list[int]
    temp_left: list[str]


def run_case(name: str, case: Case, root: Path) -> Outcome:
    home = root / name
    state, temp = home / "state", home / "tmp"
    state.mkdir(parents=True)
    temp.mkdir()
    report = home / "report.json"
    env = {**os.environ, "TMPDIR": str(temp), "SUITE_FAKE_STATE": str(state), "NO_COLOR": "1"}
    env.pop("CCWEB_SESSION_ID", None)
    command = [PYTHON, "-m", "ccweb_conformance.cli", "run", *case.target, "--protocol", "legacy", "--jobs", "1"]
    # --no-rerun: these cases count the processes of the scenarios themselves (the reruns alone start their own,
    # tests/runner/cli/test_rerun_alone_run.py)
    command += ["--tags", "AC-8", "--timeout", case.timeout, "--json", str(report), "--no-rerun"]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=RUN_BOUND, check=False)
    pids = sorted(int(p.name.removeprefix("pid-")) for p in state.glob("pid-*"))
    return Outcome(
        completed.returncode,
        completed.stdout,
        completed.stderr,
        json.loads(report.read_text(encoding="utf-8")) if report.exists() else None,
        pids,
        sorted(os.listdir(temp)),
    )


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    root = tmp_path_factory.mktemp("runs")
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(run_case, name, case, root) for name, case in CASES.items()}
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_run_survives(outcomes: dict[str, Outcome], name: str) -> None:
    case, outcome = CASES[name], outcomes[name]
    assert outcome.code == case.code, outcome.stderr
    messages = [s["message"] for s in outcome.report["scenarios"] if s["message"]] if outcome.report else []
    assert len(outcome.pids) == case.processes, (outcome.stdout, messages)
    assert [pid for pid in outcome.pids if not ended(pid)] == []
    assert outcome.temp_left == []
    if case.startup_error is not None:
        assert outcome.report is None
        started, *lines = outcome.stderr.splitlines()  # what starts, said at once; then the fault in one line
        assert started.startswith("ccweb-conformance: testing the "), started
        assert len(lines) == 1, outcome.stderr
        assert lines[0].startswith(case.startup_error[0]), lines[0]
        assert lines[0].endswith(case.startup_error[1]), lines[0]
        return
    assert outcome.report is not None
    scenarios = outcome.report["scenarios"]
    assert len(scenarios) == SCENARIOS
    assert all(s["file"] == "ac08_exact_results.feature" for s in scenarios)
    statuses = ["failed" if n in case.failures else "passed" for n in range(1, SCENARIOS + 1)]
    assert [s["status"] for s in scenarios] == statuses, [s["message"] for s in scenarios]
    assert outcome.report["outcome"] == ("passed" if case.code == 0 else "failed")
    for number, scenario in enumerate(scenarios, start=1):
        if number in case.failures:
            message = scenario["message"]
            assert all(part in message for part in case.failures[number]), message
        else:
            assert scenario["message"] is None
    failed = len(case.failures)
    lines = outcome.stdout.splitlines()
    totals = lines[-1]  # the totals are last; after a failure, where the reports are comes just before
    assert totals.startswith(f"{SCENARIOS - failed} passed, {failed} failed in ")
    if failed:
        assert lines[-3].startswith("full reports: ")
