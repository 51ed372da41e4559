"""Differential fuzzing: passes against the reference, reproducible by seed, catches a fuzz-only mutant."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from suite_size import HTTP_ONLY, NOT_IN_PROCESS, ROOT_SKIPS, SCENARIOS

import ccweb_spec
from ccweb_conformance.checks.oracle import expected_answer
from ccweb_conformance.cli import main
from ccweb_conformance.fuzz.edges import ALL_WHITESPACE
from ccweb_conformance.fuzz.phase import replay_command, run_fuzz
from ccweb_conformance.fuzz.requirements import touched_requirements
from ccweb_conformance.fuzz.settings import FuzzSettings
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import target_of

pytestmark = pytest.mark.slow

MUTANT = Path(__file__).parents[1] / "fakes" / "fuzz_mutant.py"
REFERENCE = f"{shlex.quote(sys.executable)} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}"
FUZZED = [r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in ("SEL", "BUD", "UNI", "RES")]


def _fuzz_scenario(report: dict) -> dict:
    [scenario] = [s for s in report["scenarios"] if s["file"] == "fuzz"]
    return scenario


def test_fuzz_200_seed_1_passes_in_process_and_is_one_scenario_of_every_report(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    report_path = tmp_path / "report.json"
    code = main(["run", "--in-process", "--fuzz", "200", "--seed", "1", "--json", str(report_path)])
    report = json.loads(report_path.read_text(encoding="utf-8"))
    scenario = _fuzz_scenario(report)
    fixed = [s for s in report["scenarios"] if s["file"] != "fuzz"]
    counts = report["counts"]
    skipped = ROOT_SKIPS + HTTP_ONLY + NOT_IN_PROCESS
    assert (code, counts["total"], counts["passed"]) == (0, len(fixed) + 1, len(fixed) + 1 - skipped)
    assert (scenario["feature"], scenario["name"], scenario["status"], scenario["message"]) == (
        "Differential fuzzing",
        "generated conversations, seed 1 [200 of 200 cases, argument sweep 63 of 63 calls]",
        "passed",
        None,
    )
    assert scenario["requirements"] == FUZZED
    fuzz_line = [line for line in capsys.readouterr().out.splitlines() if line.startswith("fuzz: ")]
    assert len(fuzz_line) == 1
    assert fuzz_line[0].startswith("fuzz: 200 of 200 cases in ")
    assert fuzz_line[0].endswith(": passed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no .hypothesis/ in the working directory


def test_the_same_seed_generates_the_same_cases_on_every_target():
    in_process = [
        run_fuzz(target_of(RunnerOptions(in_process=True)), FuzzSettings(40, 7), RunContext()) for _ in range(2)
    ]
    stdio = run_fuzz(target_of(RunnerOptions(stdio=REFERENCE)), FuzzSettings(40, 7), RunContext())
    http = run_fuzz(
        target_of(RunnerOptions(http_cmd=f"{REFERENCE} --http --port {{port}}", url="http://127.0.0.1:{port}/mcp")),
        FuzzSettings(40, 7),
        RunContext(),
    )
    other_seed = run_fuzz(target_of(RunnerOptions(in_process=True)), FuzzSettings(40, 8), RunContext())
    runs = [*in_process, stdio, http]
    assert [(r.passed, r.cases_run, r.error) for r in runs] == [(True, 40, None)] * 4
    assert len({r.digest for r in runs}) == 1
    assert other_seed.digest != in_process[0].digest


def test_the_fuzz_only_mutant_passes_every_fixed_scenario(tmp_path):
    report_path = tmp_path / "report.json"
    completed = subprocess.run(
        [sys.executable, str(MUTANT), "run", "--in-process", "--fuzz", "0", "--json", str(report_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    counts = report["counts"]
    skipped = ROOT_SKIPS + HTTP_ONLY + NOT_IN_PROCESS
    assert (completed.returncode, counts["passed"], counts["failed"]) == (0, counts["total"] - skipped, 0)
    assert counts["total"] == SCENARIOS + 1  # and the RO-2 audit of the run
    assert not [s for s in report["scenarios"] if s["file"] == "fuzz"]


def test_fuzzing_catches_the_mutant_with_a_shrunk_example_and_its_replay_command(tmp_path):
    """The fixed scenarios of one feature beside the phase: the test above proves the mutant passes all of them
    (a second whole run would prove it again); the phase, its shrunk example and its replay do not depend on them."""
    report_path = tmp_path / "report.json"
    argv = ["run", "--in-process", "--tags", "AC-1", "--fuzz", "500", "--seed", "1", "--json", str(report_path)]
    completed = subprocess.run(
        [sys.executable, str(MUTANT), *argv], capture_output=True, text=True, timeout=120, check=False
    )
    report = json.loads(report_path.read_text(encoding="utf-8"))
    scenario = _fuzz_scenario(report)
    message = scenario["message"]
    counts = report["counts"]
    outcome = (completed.returncode, counts["passed"], counts["failed"], counts["skipped"])
    assert outcome == (1, counts["total"] - 1, 1, 0)
    assert (scenario["status"], scenario["requirements"]) == ("failed", ["RES-3"])
    assert message.startswith(
        "differential fuzzing: the implementation differs from the reference core: $.hasMore: expected true, got false"
    )
    shrunk = json.loads(message.split("messages as JSON:\n", 1)[1].split("\narguments:\n", 1)[0])
    arguments = json.loads(message.split("\narguments:\n", 1)[1].split("\nexpected", 1)[0])
    assert shrunk == [{"role": "user", "content": ALL_WHITESPACE}, {"role": "user", "content": "😀a"}]
    assert {k: v for k, v in arguments.items() if k != "conversationId"} == {"limit": 1, "maxChars": 1}
    assert message.endswith("\nreplay: ccweb-conformance run --in-process --fuzz 500 --seed 1")
    assert message in completed.stdout  # the console prints the whole shrunk example


def test_the_replay_command_repeats_the_target_options():
    options = RunnerOptions(stdio="node server.js --dir {sessions_dir}", protocol="legacy", timeout=5.0)
    assert replay_command(target_of(options), FuzzSettings(500, 3)) == (
        "ccweb-conformance run --stdio 'node server.js --dir {sessions_dir}' --protocol legacy --timeout 5 "
        "--fuzz 500 --seed 3"
    )
    assert replay_command(target_of(options), FuzzSettings(500, 3, 30.0)) == (
        "ccweb-conformance run --stdio 'node server.js --dir {sessions_dir}' --protocol legacy --timeout 5 "
        "--fuzz 500 --seed 3 --fuzz-time 30"
    )


def test_a_difference_names_the_requirements_its_field_belongs_to():
    assert touched_requirements(["$.items[0].createdAt: expected null, got 1"]) == ("RES-5",)
    assert touched_requirements(["$.items[1].messageId: x", "$.hasMore: y"]) == ("RES-3", "RES-4")
    assert touched_requirements(["$: expected an object, got 1"]) == ("RES-1",)
    assert touched_requirements(["$.items[0].contentChars: expected 1, got 2", "$.totalChars: x"]) == ("BUD-4", "UNI-1")
    assert touched_requirements(["PLC-1: the result object is neither structuredContent nor ..."]) == ("PLC-1",)
    assert touched_requirements(["tools/call was answered with a JSON-RPC error"]) == tuple(FUZZED)


def test_the_oracle_compares_only_the_code_of_an_error(tmp_path):
    expected = expected_answer({"conversationId": "abc", "limit": "15"}, tmp_path)
    assert (expected.result, expected.is_error) == ({"ok": False, "error": {"code": "invalid_arguments"}}, True)
    missing = expected_answer({"conversationId": "a/b"}, tmp_path)
    assert (missing.result, missing.is_error) == ({"ok": False, "error": {"code": "conversation_not_found"}}, True)


def test_the_safety_bound_stops_the_phase_before_the_count_and_fails_it():
    run = run_fuzz(target_of(RunnerOptions(in_process=True)), FuzzSettings(1_000_000, 1, time_limit=1.0), RunContext())
    assert (run.passed, run.incomplete, run.timed_out, run.cases_run < 1_000_000) == (False, True, True, True)


def test_a_target_that_cannot_start_fails_the_phase_with_its_reason():
    target = target_of(RunnerOptions(stdio="no-such-command-ccweb {sessions_dir}"))
    run = run_fuzz(target, FuzzSettings(10, 1), RunContext())
    assert (run.passed, run.cases_run, run.error) == (
        False,
        0,
        "command not found or not executable: 'no-such-command-ccweb'",
    )
