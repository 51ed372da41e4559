"""The JSON and Cucumber reports are RFC 8259 JSON: a server's NaN or Infinity is written as a string, noted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import make_run

from ccweb_conformance.jsontext import finite_only
from ccweb_conformance.reports.cucumber import render_cucumber
from ccweb_conformance.reports.json_report import render_json


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not RFC 8259 JSON")


def strict_load(path: Path) -> Any:
    """The file read as a strict parser (jq, Go, serde_json) reads it: NaN and Infinity refused."""
    return json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse)


def _run_with_non_finite_numbers() -> Any:
    """A run whose transcript holds what a line client's plain json.loads makes of a server's NaN and Infinity."""
    run = make_run()
    exchange = run.scenarios[1].transcript[0]
    exchange.response = {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"_meta": {"score": float("nan")}, "items": [float("inf"), 1.5, float("-inf")]},
    }
    exchange.received_text = '{"jsonrpc":"2.0","id":3,"result":{"_meta":{"score":NaN}}}'
    return run


def test_finite_only_spells_each_non_finite_number_and_names_where() -> None:
    value = {"a": [1, float("nan"), {"b": float("-inf")}], "c": True, "d": 1.5, "e": float("inf")}
    assert finite_only(value) == (
        {"a": [1, "NaN", {"b": "-Infinity"}], "c": True, "d": 1.5, "e": "Infinity"},
        ["$.a[1]", "$.a[2].b", "$.e"],
    )
    assert finite_only([1, "NaN", None]) == ([1, "NaN", None], [])


def test_finite_only_returns_a_finite_value_itself_and_walks_what_the_encoder_cannot_write() -> None:
    finite = {"a": [1, 2.5, {"b": None}], "c": ("x", True)}
    assert finite_only(finite) == (finite, [])
    assert finite_only(finite)[0] is finite  # no copy: one pass of the C encoder told it
    # A set is no JSON: the encoder refuses it, and the walk still finds the NaN beside it.
    odd = {"s": {1, 2}, "n": [float("nan")]}
    assert finite_only(odd) == ({"s": {1, 2}, "n": ["NaN"]}, ["$.n[0]"])
    assert finite_only(float("inf")) == ("Infinity", ["$"])


def test_the_json_report_holds_no_bare_nan_and_names_the_spelt_numbers(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    path.write_text(render_json(_run_with_non_finite_numbers()), encoding="utf-8")
    report = strict_load(path)
    Draft202012Validator(report_schema()).validate(report)
    exchange = report["scenarios"][1]["transcript"][0]
    assert exchange["response"]["result"] == {"_meta": {"score": "NaN"}, "items": ["Infinity", 1.5, "-Infinity"]}
    assert exchange["nonFiniteNumbers"] == [
        "$.response.result._meta.score",
        "$.response.result.items[0]",
        "$.response.result.items[2]",
    ]
    assert exchange["receivedText"] == '{"jsonrpc":"2.0","id":3,"result":{"_meta":{"score":NaN}}}'
    assert all("nonFiniteNumbers" not in e for e in report["scenarios"][0]["transcript"])


def test_the_cucumber_report_holds_no_bare_nan(tmp_path: Path) -> None:
    """The transcript is text there: the server's NaN stays visible inside a string, never a bare number."""
    path = tmp_path / "cucumber.json"
    path.write_text(render_cucumber(_run_with_non_finite_numbers()), encoding="utf-8")
    features = strict_load(path)
    messages = [
        step["result"].get("error_message", "") for f in features for e in f["elements"] for step in e["steps"]
    ]
    assert any('"score":NaN' in m for m in messages)
