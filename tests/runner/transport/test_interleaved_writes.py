"""Two messages written into each other on stdout (two writers without a lock) are named as such (issue 46 item 3)."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
SCENARIO = "An explicit conversationId wins over the source conversation"


def test_an_answer_written_into_a_notification_is_named_with_its_cause_and_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    report = tmp_path / "report.json"
    command = shlex.join([sys.executable, str(FAKE), "1=interleaved"])
    keyword = f"test_{SCENARIO.lower().replace(' ', '_')}"
    code = main(["run", "--stdio", command, "--protocol", "legacy", "-k", keyword, "--json", str(report), "--no-rerun"])
    out = capsys.readouterr().out
    assert code == 1
    [scenario] = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    assert (scenario["status"], scenario["failedRequirements"]) == ("failed", ["PROTO-1"])
    check = (
        f"stdio server {command!r}: tools/call: the server wrote two messages into one line, as writes to stdout from"
        " two threads or goroutines at once do (write each message whole, under one lock): "
    )
    assert f"\n{check}'" in scenario["message"]
    assert "not JSON" not in scenario["message"]
    assert "hint         two answers were written into each other" in out
