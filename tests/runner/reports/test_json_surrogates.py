"""The JSON report holds no lone surrogate, so strict parsers (jq 1.6) read it; the raw text stays recoverable."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import make_run

from ccweb_conformance.reports.json_report import build_json, render_json

RECEIVED = '{"jsonrpc":"2.0","id":3,"result":{"content":"\\ud83d"}}'
# a \uD800-\uDFFF escape: preceded by an even number of backslashes (an escaped backslash is not one)
SURROGATE_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _run_with_lone_surrogate() -> object:
    run = make_run()
    exchange = run.scenarios[1].transcript[0]
    exchange.response = {"jsonrpc": "2.0", "id": 3, "result": {"content": "😀\ud83d"}}
    exchange.received_text = RECEIVED
    run.scenarios[1].message = "got '\ud83d'"
    return run


def test_lone_surrogates_become_replacement_characters_and_the_received_text_is_kept(tmp_path: Path) -> None:
    run = _run_with_lone_surrogate()
    path = tmp_path / "report.json"
    path.write_text(render_json(run), encoding="utf-8")  # type: ignore[arg-type]
    text = path.read_text(encoding="utf-8")
    assert SURROGATE_ESCAPE.findall(text) == []
    assert SURROGATE_ESCAPE.findall(json.dumps("\ud83d")) == ["\\ud83d"]  # the pattern finds one
    report = json.loads(text)
    Draft202012Validator(report_schema()).validate(report)
    exchange = report["scenarios"][1]["transcript"][0]
    assert exchange["response"]["result"]["content"] == "😀\ufffd"
    assert report["scenarios"][1]["message"] == "got '\ufffd'"
    assert base64.b64decode(exchange["receivedTextBase64"]).decode("utf-8") == RECEIVED
    assert exchange["receivedText"] == RECEIVED


def test_an_exchange_without_lone_surrogates_has_no_base64_copy() -> None:
    report = build_json(make_run())
    assert all("receivedTextBase64" not in e for s in report["scenarios"] for e in s["transcript"])


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (apt-get install -y jq)")
def test_jq_reads_the_report(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(render_json(_run_with_lone_surrogate()), encoding="utf-8")  # type: ignore[arg-type]
    done = subprocess.run(["jq", "-c", ".counts"], stdin=path.open("rb"), capture_output=True, timeout=30, check=False)
    assert (done.returncode, done.stderr) == (0, b"")
    assert json.loads(done.stdout) == build_json(make_run())["counts"]
