"""The runner as a CI gate: never a pass for unchecked work, never a hang, nothing left behind.

Every case of ``gate_cases.CASES`` is a whole run against a misbehaving server (or a signal
sent mid-run): its exit code, its message, no traceback, every report written (or none, for
a server that could not be started), and no process (daemons included) and no file of the
run left once it ended. The runs go in parallel, each bounded by a subprocess timeout (a forked run: killed by
its batch).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from runner.gate_cases import (
    CASES,
    FAKES,
    PYTHON,
    REFERENCE,
    RUN_BOUND,
    STRICT_JSON_FAULTS,
    Outcome,
    forkable,
    run_case,
    run_forked,
)
from runner.reports.report_schema import report_schema

pytestmark = pytest.mark.slow

HANDSHAKE = "protocol.feature::The server negotiates MCP (handshake)"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Every case's outcome: the forkable ones forked from one process, two at a time, beside the others, each in
    a fresh interpreter, one at a time (three runs at once, as before the batch)."""
    root = tmp_path_factory.mktemp("gate")
    fresh = {name: case for name, case in CASES.items() if not forkable(case)}
    with ThreadPoolExecutor(max_workers=1) as pool:
        futures = {name: pool.submit(run_case, name, case, root) for name, case in fresh.items()}
        forked = run_forked({name: case for name, case in CASES.items() if name not in fresh}, root)
        return {name: forked[name] if name in forked else futures[name].result() for name in CASES}


@pytest.mark.parametrize("name", list(CASES))
def test_the_run_ends_with_its_verdict_and_leaves_nothing(outcomes: dict[str, Outcome], name: str) -> None:
    case, outcome = CASES[name], outcomes[name]
    assert outcome.code == case.code, outcome.stderr[-3000:]
    assert case.message in outcome.text(), (outcome.stdout[-2000:], outcome.stderr[-2000:])
    assert "Traceback" not in outcome.stdout + outcome.stderr
    assert outcome.left_processes == []
    assert outcome.left_files == []
    if not case.reports:
        assert outcome.reports == dict.fromkeys(outcome.reports)
        said = [line for line in outcome.stderr.splitlines() if not line.startswith("ccweb-conformance: testing ")]
        assert len(said) == 1, outcome.stderr  # the fault in one line, after the first line naming what started
        return
    assert all(text is not None for text in outcome.reports.values()), outcome.stderr[-2000:]
    report = outcome.report
    assert report is not None
    Draft202012Validator(report_schema()).validate(report)
    assert report["outcome"] == case.outcome
    not_run = [s for s in report["scenarios"] if s["status"] == "notrun"]
    assert report["counts"]["notrun"] == len(not_run)
    assert all(s["message"].startswith("not run: ") for s in not_run)
    assert len(report["leftoverProcesses"]) == outcome.daemons


REPORTS_LINE = ("full reports: ", "whole transcripts: ")
"""After a failure the console says where the reports are (issue 13), just before the totals, which are last."""


def _totals_line(stdout: str) -> str:
    return [line for line in stdout.splitlines() if not line.startswith(REPORTS_LINE)][-1]


def _verdict_lines(outcome: Outcome) -> tuple[str, str]:
    return outcome.stdout.splitlines()[0], _totals_line(outcome.stdout)


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.outcome == "interrupted"])
def test_an_interrupt_is_a_verdict_in_every_report(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    report = outcome.report
    assert report is not None
    sig = signal.Signals(CASES[name].signal_after[0]).name  # type: ignore[index]
    assert report["interrupted"] == sig
    not_run = report["counts"]["notrun"]
    assert not_run > 0
    assert {s["message"] for s in report["scenarios"] if s["status"] == "notrun"} == {
        f"not run: the run was interrupted by {sig}"
    }
    head, last = _verdict_lines(outcome)
    assert head == "ccweb_list_user_inputs conformance: INTERRUPTED"
    assert last.startswith("INTERRUPTED: ") and f", {not_run} not run in " in last
    assert f"INTERRUPTED by {sig}: {not_run} scenarios not run" in outcome.stdout
    assert outcome.stderr.splitlines()[-1] == f"ccweb-conformance: interrupted by {sig}; {not_run} scenarios not run"
    junit = ET.fromstring(outcome.reports["junitxml"] or "")
    assert int(junit.get("errors", "0")) == not_run
    properties = {p.get("name"): p.get("value") for p in junit.iter("property")}
    assert properties["interrupted"] == sig
    assert "⛔ INTERRUPTED" in (outcome.reports["markdown"] or "")
    assert f"INTERRUPTED by {sig}: {not_run} scenarios not run" in (outcome.reports["markdown"] or "")


def test_the_circuit_breaker_stops_a_server_that_stopped_answering(outcomes: dict[str, Outcome]) -> None:
    report = outcomes["three-seconds-per-reply"].report
    assert report is not None
    statuses = [s["status"] for s in report["scenarios"]]
    assert statuses[:3] == ["failed"] * 3
    assert set(statuses[3:]) == {"notrun"}
    assert report["stopped"] == (
        "not run: the implementation stopped answering (3 scenarios in a row timed out or lost the server)"
    )
    assert all("no response within 1 s" in s["message"] for s in report["scenarios"][:3])


def test_max_time_stops_the_run_and_fails_it(outcomes: dict[str, Outcome]) -> None:
    report = outcomes["max-time"].report
    assert report is not None
    assert report["stopped"] == "not run: the run reached --max-time 3 s"
    assert report["counts"]["notrun"] > 100
    assert _totals_line(outcomes["max-time"].stdout).startswith(f"{report['counts']['passed']} passed, 0 failed")


@pytest.mark.parametrize(
    "name",
    [
        "handshake-not-json",
        "handshake-malformed-result",
        "deep-handshake-stdio",
        "deep-handshake-http",
        "http-start-up-wrong-content-type",
        "http-start-up-plain-text",
    ],
)
def test_a_protocol_violation_in_the_handshake_fails_proto_1(outcomes: dict[str, Outcome], name: str) -> None:
    report = outcomes[name].report
    assert report is not None
    first, *rest = report["scenarios"]
    assert (first["id"], first["status"], first["requirements"]) == (HANDSHAKE, "failed", ["PROTO-1"])
    assert "broke the protocol while negotiating MCP" in first["message"]
    assert first["transcript"] != []
    assert {s["status"] for s in rest} == {"notrun"}
    assert {r["id"]: r["status"] for r in report["requirements"]}["PROTO-1"] == "failed"
    assert report["stopped"] == "not run: the implementation broke the protocol during the handshake"


@pytest.mark.parametrize("name", ["deep-handshake-stdio", "deep-handshake-http"])
def test_a_too_deep_handshake_is_one_verdict_without_a_recursion_error(outcomes: dict[str, Outcome], name: str) -> None:
    report = outcomes[name].report
    assert report is not None
    assert [s["status"] for s in report["scenarios"]].count("failed") == 1
    assert "initialize: " in report["scenarios"][0]["message"]
    assert "Recursion" not in outcomes[name].text()


def _not_a_json_constant(name: str) -> None:
    raise AssertionError(f"the report holds {name}, which is not JSON")


STRICT_JSON_CASES = [
    *(f"{fault}-{wire}" for fault in STRICT_JSON_FAULTS for wire in ("stdio", "http-json", "http-sse")),
    "duplicate-text-block",
]


@pytest.mark.parametrize("name", STRICT_JSON_CASES)
def test_json_that_is_not_strict_fails_proto_1_on_every_wire(outcomes: dict[str, Outcome], name: str) -> None:
    text = outcomes[name].reports["json"]
    assert text is not None
    report = json.loads(text, parse_constant=_not_a_json_constant)
    statuses = {s["name"]: s["status"] for s in report["scenarios"]}
    assert statuses["Every message received is valid MCP for the negotiated revision"] == "failed"
    assert {r["id"]: r["status"] for r in report["requirements"]}["PROTO-1"] == "failed"
    failed = [s["message"] for s in report["scenarios"] if s["status"] == "failed"]
    assert all("PROTO-1: a message received breaks JSON-RPC 2.0 or the MCP schema: " in m for m in failed), failed


def test_the_handshake_violation_names_what_was_wrong(outcomes: dict[str, Outcome]) -> None:
    garbage = outcomes["handshake-not-json"].report
    malformed = outcomes["handshake-malformed-result"].report
    assert garbage is not None and malformed is not None
    assert (
        "initialize: the server wrote a line that is not JSON: "
        "'gate fake: starting up, this line is not JSON\\n'" in garbage["scenarios"][0]["message"]
    )
    assert "initialize answered a malformed result (protocolVersion 20251125)" in malformed["scenarios"][0]["message"]


def test_a_trickling_sse_stream_times_out_at_the_request_deadline(outcomes: dict[str, Outcome]) -> None:
    report = outcomes["sse-trickle"].report
    assert report is not None
    assert [s["status"] for s in report["scenarios"]] == ["passed", "passed", "failed"] + ["passed"] * 10
    assert report["scenarios"][2]["name"] == "After a cut, older inputs that would fit are not added"
    assert "tools/call: no response within 2 s" in report["scenarios"][2]["message"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("over-the-cap-stdio", "tools/call: the server wrote a message larger than the limit of 100000 bytes"),
        ("over-the-cap-http-json", "tools/call: the server sent a message larger than the limit of 100000 bytes"),
        ("over-the-cap-http-sse", "tools/call: the server sent a message larger than the limit of 100000 bytes"),
        (
            "over-the-cap-http-sse-multibyte",
            "tools/call: the server sent a message larger than the limit of 100000 bytes",
        ),
    ],
)
def test_a_message_over_the_cap_fails_clearly_on_every_wire(outcomes: dict[str, Outcome], name: str, text: str) -> None:
    report = outcomes[name].report
    assert report is not None
    failed = [s for s in report["scenarios"] if s["status"] == "failed"]
    # three scenarios in a row broke the protocol the same way (--stop-after 3): the rest is not run, said once
    assert len(failed) == 3
    assert all(text + " (--max-message-bytes)" in s["message"] for s in failed)
    assert report["stopped"] == (
        "not run: the implementation broke the protocol the same way in 3 scenarios in a row "
        f"({text} (--max-message-bytes))"
    )
    assert {s["status"] for s in report["scenarios"] if s not in failed} == {"notrun"}


def test_a_gate_fake_outlives_the_longest_run_allowed() -> None:
    """A fake ends by itself after LIFETIME seconds; a slow run under load must not see its server die of that."""
    lifetime = re.search(r"^LIFETIME = (\d+)$", (FAKES / "gate_server.py").read_text(encoding="utf-8"), re.MULTILINE)
    assert lifetime is not None and int(lifetime[1]) > RUN_BOUND


def test_a_notification_storm_keeps_the_runner_small(outcomes: dict[str, Outcome]) -> None:
    assert 0 < outcomes["notification-storm"].peak_mb < 200


def test_a_daemon_the_server_left_is_named_and_stopped(outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes["daemonised-child"]
    assert outcome.daemons >= 1
    report = outcome.report
    assert report is not None
    assert all(p.startswith("pid ") and "gate_server.py stdio daemon" in p for p in report["leftoverProcesses"])
    assert (
        f"warning: the server left {outcome.daemons} processes running after it was stopped (the runner killed them)"
        in outcome.stdout
    )


@pytest.mark.parametrize("name", ["utf16-units-verbose", "utf16-units-verbose-gbk"])
def test_verbose_output_of_a_utf16_bug_never_crashes(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    assert "UnicodeEncodeError" not in outcome.stdout + outcome.stderr
    report = outcome.report
    assert report is not None
    assert report["counts"]["failed"] > 0
    assert {r["id"]: r["status"] for r in report["requirements"]}["UNI-1"] == "failed"


def test_an_interrupt_with_a_sessions_dir_removes_exactly_the_runs_files(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "theirs.json").write_text("{}", encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", "TMPDIR": str(tmp_path)}
    stdio = REFERENCE + " --sessions-dir {sessions_dir}"
    command = [PYTHON, "-m", "ccweb_conformance.cli", "run", "--stdio", stdio, "--sessions-dir", str(sessions), "-v"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    for line in process.stderr:
        if line.startswith("PASSED "):
            break
    process.send_signal(signal.SIGINT)
    try:
        stdout, _ = process.communicate(timeout=RUN_BOUND)
    finally:
        process.kill()
    assert process.returncode == 130
    assert stdout.splitlines()[0] == "ccweb_list_user_inputs conformance: INTERRUPTED"
    assert sorted(os.listdir(sessions)) == ["theirs.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sessions"]


def test_a_report_that_cannot_be_written_does_not_stop_the_others(tmp_path: Path) -> None:
    blocked = Path("/dev/full")  # every write fails with ENOSPC: a disk that filled up during the run
    command = [PYTHON, "-m", "ccweb_conformance.cli", "run", "--in-process", "--tags", "SEL-6"]
    command += ["--junitxml", str(blocked), "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_BOUND, check=False)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("ccweb-conformance: error:")]
    assert len(errors) == 1  # besides it, stderr carries only the CI-log progress lines
    assert errors[0] == (
        "ccweb-conformance: error: could not write the JUnit XML report '/dev/full': [Errno 28] No space left on device"
    )
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["outcome"] == "passed"
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("## ccweb_list_user_inputs conformance")
    assert done.stdout.splitlines()[0] == "ccweb_list_user_inputs conformance: PASSED (selection: --tags SEL-6)"
