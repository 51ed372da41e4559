"""Two messages written into each other on stdout (two writers without a lock) are named as such, and charged
once: to the scenario whose exchange read them, never to the scenarios after it (issue 46 item 3)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.cli import main

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
SCENARIO = "An explicit conversationId wins over the source conversation"
PIPELINED = "Pipelined calls naming different conversations each read the one they name"
TORN = "the server wrote two messages into one line, as writes to stdout from two threads or goroutines at once"
TAGS = "STO-1,STO-2"
"""Scenarios that call the tool without a source binding: one connection serves them one after another."""


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str, *selection: str) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    report = tmp_path / "report.json"
    command = shlex.join([sys.executable, str(FAKE), fault])
    code = main(["run", "--stdio", command, "--protocol", "legacy", *selection, "--json", str(report), "--no-rerun"])
    return code, json.loads(report.read_text(encoding="utf-8"))


def _keyword(scenario: str) -> str:
    return f"test_{scenario.lower().replace(' ', '_')}"


def test_an_answer_written_into_a_notification_is_named_with_its_cause_and_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, monkeypatch, "1=interleaved", "-k", _keyword(SCENARIO))
    out = capsys.readouterr().out
    assert code == 1
    [scenario] = report["scenarios"]
    assert (scenario["status"], scenario["failedRequirements"]) == ("failed", ["PROTO-1"])
    command = shlex.join([sys.executable, str(FAKE), "1=interleaved"])
    check = f"stdio server {command!r}: tools/call: {TORN} do (write each message whole, under one lock): "
    assert f"\n{check}'" in scenario["message"]
    assert "not JSON" not in scenario["message"]
    assert "hint         two answers were written into each other" in out


def test_the_rest_of_a_torn_line_is_never_read_by_the_scenarios_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tail of the cut notification is left on the wire: the connection is dropped with it, so every later
    scenario runs on a fresh one and passes; exactly one failure, PROTO-1, the interleaving."""
    code, report = _run(tmp_path, monkeypatch, "1=torn", "--tags", TAGS)
    assert code == 1
    failed = [s for s in report["scenarios"] if s["status"] != "passed"]
    assert [(s["status"], s["failedRequirements"]) for s in failed] == [("failed", ["PROTO-1"])]
    assert TORN in failed[0]["message"]
    assert len(report["scenarios"]) > 3


def test_pipelined_answers_written_into_each_other_are_named_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, report = _run(tmp_path, monkeypatch, "1=torn", "-k", _keyword(PIPELINED))
    assert code == 1
    [scenario] = report["scenarios"]
    assert (scenario["status"], scenario["failedRequirements"]) == ("failed", ["PROTO-1"])
    assert f": {TORN} do (write each message whole, under one lock): " in scenario["message"]
    assert "not JSON" not in scenario["message"]


def test_a_wrong_id_with_no_interleaving_before_it_is_still_a_wrong_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, report = _run(tmp_path, monkeypatch, "1=wrong-id", "-k", _keyword(SCENARIO))
    assert code == 1
    [scenario] = report["scenarios"]
    assert (scenario["status"], scenario["failedRequirements"]) == ("failed", ["PROTO-1"])
    assert "tools/call: a response with id 102 while waiting for id 2" in scenario["message"]
