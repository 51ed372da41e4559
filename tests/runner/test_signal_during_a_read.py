"""A signal while an HTTP read waits ends the run at once, as any interrupt does (DESIGN.md section 5).

Each case is a whole ``ccweb-conformance run`` in a subprocess (``gate_cases.run_case``), signalled once the gate
fake says a read is in flight (a file it writes) or a scenario passed: its exit code, every report written as on any
interrupted run, no process and no file of the run left; and it ends within ``INTERRUPT_BOUND`` of its signal,
though the read would wait ``READ_TIMEOUT`` (a guard against a hang, not a speed check). The gate's own case of a
signal during a ``--url`` read is ``sigterm-during-a-url-read`` (``test_gate.py``).
"""

from __future__ import annotations

import signal
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from runner.gate_cases import READ_CASES, run_case

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", list(READ_CASES))
def test_a_signal_during_a_read_ends_the_run_as_any_interrupt(tmp_path: Path, name: str) -> None:
    case = READ_CASES[name]
    assert case.signal_after is not None
    sig = signal.Signals(case.signal_after[0]).name
    outcome = run_case(name, case, tmp_path)
    assert outcome.code == case.code, outcome.stderr[-3000:]
    assert "Traceback" not in outcome.stdout + outcome.stderr
    assert outcome.left_processes == []
    assert outcome.left_files == []
    report = outcome.report
    assert report is not None, outcome.stderr[-3000:]
    assert (report["outcome"], report["interrupted"]) == ("interrupted", sig)
    not_run = report["counts"]["notrun"]
    assert not_run > 0
    assert {s["message"] for s in report["scenarios"] if s["status"] == "notrun"} == {
        f"not run: the run was interrupted by {sig}"
    }
    assert outcome.stdout.splitlines()[0] == "ccweb_list_user_inputs conformance: INTERRUPTED"
    assert outcome.stderr.splitlines()[-1] == f"ccweb-conformance: interrupted by {sig}; {not_run} scenarios not run"
    junit = ET.fromstring(outcome.reports["junitxml"] or "")
    assert {p.get("name"): p.get("value") for p in junit.iter("property")}["interrupted"] == sig
    assert f"INTERRUPTED by {sig}: {not_run} scenarios not run" in (outcome.reports["markdown"] or "")
    assert outcome.reports["cucumberjson"] is not None
