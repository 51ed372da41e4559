"""JUnit XML and Cucumber JSON validate against the schemas CI tools use (kept in ``data/``).

Reports of real runs (passing, failing, warning, expected failures) and of the hand-built run
with one scenario per status: JUnit against Jenkins xUnit's ``junit-10.xsd``, Cucumber JSON
against cucumber-json-schema's cucumber-js, cucumber-jvm and cucumber-ruby schemas.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from jsonschema import Draft7Validator
from paths import REPO
from runner.reports.test_reports import make_run

from ccweb_conformance.reports import build_cucumber, write_junit

DATA = Path(__file__).parent / "data"
FLAVOURS = ("js", "jvm", "ruby")
RUNS = {
    # name: (mutants, CLI arguments, exit code, statuses that must appear)
    "passing": ("-", ["--tags", "AC-1,AC-2"], 0, {"passed"}),
    "failing": ("utf16_units", ["--tags", "AC-7"], 1, {"passed", "failed"}),
    "warning": ("no_read_only_hint", ["--tags", "AC-1"], 0, {"passed", "warning"}),
    "expected-failures": ("utf16_units", ["--tags", "AC-7", "--expected-failures", "KNOWN"], 0, {"passed", "xfailed"}),
}
KNOWN = (
    "version: 1\nexpected_failures:\n"
    "  - requirement: UNI-1\n    reason: UTF-16 units\n"
    "  - requirement: UNI-2\n    reason: UTF-16 units\n"
)


@pytest.fixture(scope="module")
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(DATA / "junit-10.xsd"))


def cucumber_validator(flavour: str) -> Draft7Validator:
    return Draft7Validator(json.loads((DATA / f"cucumber-{flavour}.schema.json").read_text(encoding="utf-8")))


def errors(flavour: str, document: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in cucumber_validator(flavour).iter_errors(document)][:5]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report-runs")
    (folder / "known.yaml").write_text(KNOWN, encoding="utf-8")
    for name, (mutants, args, code, _) in RUNS.items():
        out = folder / name
        out.mkdir()
        argv = [a.replace("KNOWN", str(folder / "known.yaml")) for a in args]
        command = [sys.executable, str(Path(__file__).parent / "reports_run.py"), mutants, "run", "--in-process",
                   *argv, "--junitxml", str(out / "junit.xml"), "--cucumberjson", str(out / "cucumber.json"),
                   "--json", str(out / "report.json")]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=REPO)
        assert done.returncode == code, (name, done.stdout[-2000:], done.stderr[-2000:])
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
        write_junit(run, tmp_path / "junit.xml")
        junit_schema.validate(str(tmp_path / "junit.xml"))
        for flavour in FLAVOURS:
            assert errors(flavour, build_cucumber(run, flavour)) == [], flavour


def test_the_schemas_reject_the_old_shapes(tmp_path, junit_schema):
    """The checks can fail: the attributes the reports used to write are refused."""
    write_junit(make_run(), tmp_path / "junit.xml")
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
    write_junit(run, tmp_path / "junit.xml")
    raw = (tmp_path / "junit.xml").read_bytes().decode("utf-8")
    assert 'name="中文场景 [😀-1]"' in raw
    assert "\\u" not in raw.split("<testcase", 1)[1].split(">", 1)[0]
