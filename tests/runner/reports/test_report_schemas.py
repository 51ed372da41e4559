"""JUnit XML and Cucumber JSON validate against the schemas CI tools use (kept in ``data/``).

Reports of real runs (passing, failing, warning, expected failures) and of the hand-built run
with one scenario per status: JUnit against Jenkins xUnit's ``junit-10.xsd``, Cucumber JSON
against cucumber-json-schema's cucumber-js, cucumber-jvm and cucumber-ruby schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from jsonschema import Draft7Validator
from runner.cli.expected_failures_runs import forked_runs
from runner.reports.test_reports import make_run

from ccweb_conformance.reports.cucumber import build_cucumber
from ccweb_conformance.reports.junit import render_junit

DATA = Path(__file__).parent / "data"
FLAVOURS = ("js", "jvm", "ruby")
RUNS = {
    # name: (mutants, CLI arguments, exit code, statuses that must appear)
    "passing": ("-", ["--tags", "AC-1,AC-2,RO-2", "--fuzz", "3"], 0, {"passed"}),
    "failing": ("utf16_units", ["--tags", "AC-7"], 1, {"passed", "failed"}),
    "warning": ("no_read_only_hint", ["--tags", "AC-1"], 0, {"passed", "warning"}),
    "expected-failures": ("utf16_units", ["--tags", "AC-7", "--expected-failures", "KNOWN"], 0, {"passed", "xfailed"}),
}
KNOWN = (
    "version: 1\nexpected_failures:\n"
    "  - requirement: UNI-1\n    reason: UTF-16 units, one mistake of UNI-1 (its failures are charged there)\n"
)


@pytest.fixture(scope="module")
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))


def cucumber_validator(flavour: str) -> Draft7Validator:
    return Draft7Validator(json.loads((DATA / f"cucumber-{flavour}.schema.json").read_text(encoding="utf-8")))


def converter_validator() -> Draft7Validator:
    """The cucumber-jvm 7 schema of Cucumber's own converter (no embeddings)."""
    return Draft7Validator(json.loads((DATA / "converter-cucumber-jvm-7.schema.json").read_text(encoding="utf-8")))


def errors(flavour: str, document: Any) -> list[str]:
    """Schema errors; jvm is checked by Cucumber's converter schema too (js and ruby: the same schemas)."""
    validators = [cucumber_validator(flavour), *([converter_validator()] if flavour == "jvm" else [])]
    return [f"{list(e.absolute_path)}: {e.message}" for v in validators for e in v.iter_errors(document)][:5]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every run of :data:`RUNS`, forked from one process that imported the kit once, two at a time (the
    expected-failures runs' batch), each writing its Cucumber JSON in every flavour."""
    folder = tmp_path_factory.mktemp("report-runs")
    (folder / "known.yaml").write_text(KNOWN, encoding="utf-8")
    wanted = {}
    for name, (mutants, args, _, _) in RUNS.items():
        out = folder / name
        out.mkdir()
        argv = [a.replace("KNOWN", str(folder / "known.yaml")) for a in args]
        wanted[name] = {
            "argv": ["run", "--in-process", *argv, "--junitxml", str(out / "junit.xml"),
                     "--cucumberjson", str(out / "cucumber.json"), "--json", str(out / "report.json")],
            "mutants": [m for m in mutants.split(",") if m and m != "-"],
            "calls": ["runner.reports.reports_run:every_flavour"],
        }  # fmt: skip
    done = forked_runs(folder, wanted)
    for name, (_, _, code, _) in RUNS.items():
        assert done[name].returncode == code, (name, done[name].stdout[-2000:], done[name].stderr[-2000:])
    return {name: folder / name for name in RUNS}


@pytest.mark.parametrize("name", RUNS)
def test_real_runs_give_valid_junit(runs, name, junit_schema):
    report = json.loads((runs[name] / "report.json").read_text(encoding="utf-8"))
    assert RUNS[name][3] <= {s["status"] for s in report["scenarios"]}
    junit_schema.validate(str(runs[name] / "junit.xml"))


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("name", RUNS)
def test_real_runs_give_valid_cucumber_json(runs, name, flavour):
    document = json.loads((runs[name] / f"cucumber.json.{flavour}").read_text(encoding="utf-8"))
    assert errors(flavour, document) == []


def test_every_status_gives_valid_reports(tmp_path, junit_schema):
    for strict in (False, True):
        run = make_run(strict=strict)
        assert {s.status for s in run.scenarios} == {"passed", "failed", "warning", "xfailed", "xpassed", "skipped"}
        (tmp_path / "junit.xml").write_text(render_junit(run), encoding="utf-8")
        junit_schema.validate(str(tmp_path / "junit.xml"))
        for flavour in FLAVOURS:
            assert errors(flavour, build_cucumber(run, flavour)) == [], flavour


def test_the_schemas_reject_the_old_shapes(tmp_path, junit_schema):
    """The checks can fail: the attributes the reports used to write are refused."""
    (tmp_path / "junit.xml").write_text(render_junit(make_run()), encoding="utf-8")
    text = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    broken = text.replace('<testcase ', '<testcase file="x.feature" line="3" ', 1)
    assert not junit_schema.is_valid(broken)
    document = build_cucumber(make_run(), "js")
    del document[0]["elements"][0]["steps"][0]["line"]
    assert errors("js", document)
    assert errors("jvm", build_cucumber(make_run(), "js"))  # one flavour is not another


def test_chinese_names_stay_chinese(tmp_path):
    run = make_run()
    run.scenarios[0].scenario = "中文场景 [😀-1]"
    (tmp_path / "junit.xml").write_text(render_junit(run), encoding="utf-8")
    raw = (tmp_path / "junit.xml").read_bytes().decode("utf-8")
    assert 'name="中文场景 [😀-1]"' in raw
    assert "\\u" not in raw.split("<testcase", 1)[1].split(">", 1)[0]


def test_the_converter_refuses_an_embedding_on_a_jvm_step():
    document = build_cucumber(make_run(), "jvm")
    assert errors("jvm", document) == []
    document[0]["elements"][0]["steps"][0]["embeddings"] = [{"mime_type": "text/plain", "data": "", "name": "x"}]
    assert cucumber_validator("jvm").is_valid(document)  # cucumber-json-schema allows it ...
    assert not converter_validator().is_valid(document)  # ... Cucumber's converter does not


def _steps(document: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(e["name"], step) for f in document for e in f["elements"] for step in e["steps"]]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_a_failing_run_keeps_the_input_and_leads_with_the_diagnosis(runs, flavour):
    document = json.loads((runs["failing"] / f"cucumber.json.{flavour}").read_text(encoding="utf-8"))
    name = "Characters outside the BMP count as one [😀-1]"
    steps = [s for n, s in _steps(document) if n == name]
    rows = [{"cells": ["role", "content"]}, {"cells": ["user", "😀"]}]
    assert (steps[0]["arguments"] if flavour == "js" else [{"rows": steps[0]["rows"]}]) == [{"rows": rows}]
    call = next(s for s in steps if s["name"] == "I call the tool with arguments:")
    doc = {"content": call["arguments"][0]["content"]} if flavour == "js" else {"content": call["doc_string"]["value"]}
    assert doc == {"content": '{"conversationId": "{alpha}"}'}
    failed = next(s for s in steps if s["result"]["status"] == "failed")
    message = failed["result"]["error_message"].splitlines()
    assert message[:4] == [
        "UNI-1: items differ: $.items[0].contentChars: expected 1, got 2 (+1)",
        "hint: lengths look like UTF-16 code units (JavaScript's text.length): count code points, e.g. "
        '[...text].length, and cut with Array.from(text).slice(0, n).join("")',
        "reproduced alone: run again by itself on a fresh server in the runner (--in-process), it failed UNI-1 at the"
        " same check",
        "",
    ]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_run_checks_have_a_real_status(runs, flavour):
    """The audit and the fuzz phase carry one passed step: not 'pending' nor "NaN %" in viewers."""
    document = json.loads((runs["passing"] / f"cucumber.json.{flavour}").read_text(encoding="utf-8"))
    checks = {f["uri"]: f["elements"] for f in document if f["uri"] in ("audit", "fuzz")}
    assert sorted(checks) == ["audit", "fuzz"]
    for elements in checks.values():
        assert [[s["result"]["status"] for s in e["steps"]] for e in elements] == [["passed"]]
        assert elements[0]["steps"][0]["name"] == elements[0]["name"]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_steps_after_a_failed_step_are_skipped_not_failed(runs, flavour):
    """They never ran: a viewer shows them skipped, and only the failed step red (with its message)."""
    document = json.loads((runs["failing"] / f"cucumber.json.{flavour}").read_text(encoding="utf-8"))
    elements = {e["name"]: e for f in document for e in f["elements"]}
    steps = elements["Truncation keeps whole emoji"]["steps"]
    assert [(s["keyword"], s["result"]["status"]) for s in steps] == [
        ("Given ", "passed"), ("When ", "passed"), ("Then ", "failed"), ("And ", "skipped")
    ]
    assert "error_message" in steps[2]["result"] and "error_message" not in steps[3]["result"]
    for element in elements.values():
        statuses = [s["result"]["status"] for s in element["steps"]]
        if "failed" in statuses:
            assert set(statuses[statuses.index("failed") + 1 :]) <= {"skipped"}, element["name"]
