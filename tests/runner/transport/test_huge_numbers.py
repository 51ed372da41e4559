"""A number with more digits than Python converts (issue 45): named as such and charged to PROTO-1, not "not JSON"."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from runner.gate_cases import http

from ccweb_conformance.cli import main
from ccweb_conformance.jsontext import TooManyDigits, beyond_limits, read_json

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
BEYOND = "a number with 5,000 digits, more than the 4,300 the runner reads (RFC 8259 allows the limit)"
SCENARIOS = {
    "An explicit conversationId wins over the source conversation": "huge-id",
    "An explicit conversationId works without any source conversation": "huge-meta",
}
"""Two SRC-2 scenarios, one tools/call each, in the order they run, and the fake's fault on that call."""


def test_an_integer_beyond_the_digit_limit_is_named_with_its_digits() -> None:
    with pytest.raises(TooManyDigits) as raised:
        read_json('{"id": -' + "7" * 5000 + "}")
    assert str(raised.value) == BEYOND
    assert beyond_limits("[" + "1" * 5000 + "]") == BEYOND
    assert beyond_limits("not JSON") is None
    assert read_json("[" + "1" * 4300 + "]").value == [int("1" * 4300)]


def test_a_huge_number_in_a_reply_fails_proto_1_with_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    report = tmp_path / "report.json"
    command = shlex.join([sys.executable, str(FAKE), "1=huge-id", "2=huge-meta"])
    names = " or ".join(f"test_{name.lower().replace(' ', '_')}" for name in SCENARIOS)
    code = main(["run", "--stdio", command, "--protocol", "legacy", "-k", names, "--json", str(report)])
    capsys.readouterr()
    assert code == 1
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    assert [(s["name"], s["status"], s["requirements"], s["failedRequirements"]) for s in scenarios] == [
        (name, "failed", ["SRC-2"], ["PROTO-1"]) for name in SCENARIOS
    ]
    for scenario in scenarios:
        check = f"stdio server {command!r}: tools/call: the server wrote {BEYOND}: "
        assert f"\n{check}'" in scenario["message"]
        assert "not JSON" not in scenario["message"]


@pytest.mark.parametrize("words", [("huge",), ("sse", "huge")], ids=["http-json", "http-sse"])
def test_over_http_a_huge_number_fails_proto_1_with_its_words(
    words: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GATE_STATE", str(tmp_path))
    report = tmp_path / "report.json"
    name = next(iter(SCENARIOS))
    keyword = f"test_{name.lower().replace(' ', '_')}"
    code = main(["run", *http(*words), "-k", keyword, "--json", str(report)])
    capsys.readouterr()
    assert code == 1
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    assert [(s["name"], s["status"], s["failedRequirements"]) for s in scenarios] == [(name, "failed", ["PROTO-1"])]
    said = "HTTP 200 body is" if words == ("huge",) else "an SSE event's data is"
    assert f"tools/call: {said} {BEYOND}" in scenarios[0]["message"]
