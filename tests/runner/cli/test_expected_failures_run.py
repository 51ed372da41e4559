"""Expected failures end to end: a known failure is reported XFAIL, one that passes fails the run."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import REPO

from ccweb_conformance.cli import main

pytestmark = pytest.mark.slow


def run(tmp_path: Path, yaml_text: str, *extra: str) -> tuple[int, dict]:
    known = tmp_path / "known.yaml"
    known.write_text(yaml_text, encoding="utf-8")
    report = tmp_path / "report.json"
    code = main(["run", "--in-process", "--expected-failures", str(known), "--json", str(report), *extra])
    return code, json.loads(report.read_text(encoding="utf-8"))


def test_an_expected_failure_that_passes_fails_the_run(tmp_path, capsys):
    yaml_text = (
        "version: 1\nexpected_failures:\n"
        '  - scenario: "ac01_tool_definition.feature::The tool is listed under its contract name"\n'
        '    reason: "not listed yet"\n'
    )
    code, report = run(tmp_path, yaml_text, "--tags", "AC-1")
    assert code == 1
    assert report["counts"]["xpassed"] == 1
    assert report["counts"]["passed"] == 5
    [xpassed] = [s for s in report["scenarios"] if s["status"] == "xpassed"]
    assert xpassed["name"] == "The tool is listed under its contract name"
    assert xpassed["message"] == "expected failure passed: not listed yet"
    assert {r["id"]: r["status"] for r in report["requirements"]}["TOOL-1"] == "failed"


def test_an_entry_that_matches_nothing_is_warned_about(tmp_path, capsys):
    yaml_text = (
        "version: 1\nexpected_failures:\n"
        '  - scenario: "ac01_tool_definition.feature::No such scenario"\n    reason: "stale entry"\n'
    )
    code, report = run(tmp_path, yaml_text, "--tags", "TOOL-1")
    assert code == 0
    assert report["counts"]["passed"] == 1
    warning = 'ccweb-conformance: warning: {}: scenario "ac01_tool_definition.feature::No such scenario" (line 3)'
    assert warning.format(tmp_path / "known.yaml") in capsys.readouterr().err


def test_known_failures_of_a_broken_implementation_are_reported_and_do_not_fail_the_run(tmp_path):
    """The mutant newest_first breaks the order of items; listed as known, the run exits 0 with XFAILs."""
    known = tmp_path / "known.yaml"
    known.write_text(
        "version: 1\nexpected_failures:\n"
        '  - scenario: "ac03_latest_fifteen.feature::*"\n    reason: "order fix pending"\n',
        encoding="utf-8",
    )
    report = tmp_path / "report.json"
    runner = REPO / "tests" / "mutants" / "run.py"
    argv = ["run", "--in-process", "--tags", "AC-3", "--expected-failures", str(known), "--json", str(report)]
    completed = subprocess.run(
        [sys.executable, str(runner), "mutant", "newest_first", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    result = json.loads(report.read_text(encoding="utf-8"))
    statuses = {s["name"]: s["status"] for s in result["scenarios"]}
    assert completed.returncode == 0, completed.stderr
    assert statuses == {
        "Twenty inputs give the latest fifteen, oldest first": "xfailed",
        "Exactly fifteen inputs are all returned and nothing more is reported": "xfailed",
        "The window counts candidates, not stored messages": "xfailed",
        "Items keep the stored order, not the timestamps' order": "xfailed",
        "A limit larger than the number of candidates returns them all": "xfailed",
    }
    assert {s["expectedFailureReason"] for s in result["scenarios"]} == {"order fix pending"}


def test_a_requirement_entry_that_covers_no_failure_fails_the_run(tmp_path, capsys):
    """A requirement entry whose scenarios all pass is stale: they pass, and the run fails (exit 1) saying so."""
    yaml_text = 'version: 1\nexpected_failures:\n  - requirement: TOOL-1\n    reason: "not listed yet"\n'
    code, report = run(tmp_path, yaml_text, "--tags", "AC-1")
    assert code == 1
    assert (report["counts"]["passed"], report["counts"]["xpassed"], report["counts"]["failed"]) == (6, 0, 0)
    assert all(s["expectedFailureReason"] is None for s in report["scenarios"])
    assert {r["id"]: r["status"] for r in report["requirements"]}["TOOL-1"] == "passed"
    line = (
        f"{tmp_path / 'known.yaml'}: requirement TOOL-1 (line 3) matched no failure: a stale entry fails the run "
        "(the gap is closed: remove the entry)"
    )
    assert report["outcome"] == "failed"
    assert report["staleExpectedFailures"] == [line]
    assert f"ccweb-conformance: error: {line}" in capsys.readouterr().err


def _readme_expected_failures(page: str = "runner.md", after: str = "--expected-failures FILE") -> str:
    """The expected-failures YAML block of a docs page, as written there."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    block = text.split(after, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block)


def _run_mutants(tmp_path: Path, mutants: tuple[str, ...], yaml_text: str, *extra: str):
    known = tmp_path / "known.yaml"
    known.write_text(yaml_text, encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, 'tests'); from mutants.catalogue import MUTANTS\n"
        f"[MUTANTS[name].apply() for name in {list(mutants)!r}]\n"
        "from ccweb_conformance.cli import main; sys.exit(main(sys.argv[1:]))\n"
    )
    report = tmp_path / "report.json"
    argv = ["run", "--in-process", "--expected-failures", str(known), "--json", str(report), *extra]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )
    return done, json.loads(report.read_text(encoding="utf-8"))


def test_the_ci_page_baseline_turns_the_utf16_run_green(tmp_path):
    """docs/ci.md's file against UTF-16 counting: every failure charged to a listed requirement is expected,
    a scenario tagged REG-1 but charged to UNI-1 included, and the fuzz phase runs all its cases."""
    done, report = _run_mutants(tmp_path, ("utf16_units",), _readme_expected_failures("ci.md", "## Expected failures"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert report["staleExpectedFailures"] == []
    statuses = {s["name"]: (s["status"], s["requirements"], s["failedRequirements"]) for s in report["scenarios"]}
    assert statuses["The same call gives the same result every time"] == ("xfailed", ["REG-1"], ["UNI-1"])
    [fuzz] = [s for s in report["scenarios"] if s["id"].startswith("fuzz::")]
    assert fuzz["status"] == "xfailed"
    assert fuzz["name"] == "generated conversations, seed 0 [60 of 60 cases, argument sweep 63 of 63 calls]"
    assert "fuzz: 60 of 60 cases" in done.stdout
    assert "only differences the expected-failures file lists" in done.stdout
    verdicts = {r["id"]: r["status"] for r in report["requirements"]}
    assert {r for r, v in verdicts.items() if v == "xfailed"} == {"UNI-1"}
    assert {tuple(s["failedRequirements"]) for s in report["scenarios"] if s["status"] == "xfailed"} == {("UNI-1",)}


def test_one_mistake_is_charged_to_its_rule_alone_without_a_baseline(tmp_path):
    """UTF-16 counting with no expected failures: every failed scenario, the budget's and the ZWJ family's included,
    is charged to UNI-1 alone (DESIGN section 6: the answer is exactly what that one catalogued mistake gives)."""
    done, report = _run_mutants(tmp_path, ("utf16_units",), "version: 1\nexpected_failures: []\n", "--fuzz", "0")
    assert done.returncode == 1
    failed = {s["name"]: s["failedRequirements"] for s in report["scenarios"] if s["status"] == "failed"}
    assert failed["The budget counts an emoji once"] == ["UNI-1"]
    assert failed["A ZWJ family counts each code point and may be cut inside"] == ["UNI-1"]
    assert {tuple(r) for r in failed.values()} == {("UNI-1",)}
    assert [r["id"] for r in report["requirements"] if r["status"] == "failed"] == ["UNI-1"]


@pytest.mark.parametrize(
    ("mutant", "rule"), [("budget_from_oldest", "BUD-1"), ("skip_instead_of_cut", "BUD-2"), ("utf8_bytes", "UNI-1")]
)
def test_other_catalogued_mistakes_are_charged_to_their_rule(tmp_path, mutant, rule):
    """Mistakes whose failures were charged to 4 to 12 requirements before: every failure the answers explain is
    charged to the mistake's rule alone (utf8_bytes' answers also break the output schema, a check of its own)."""
    done, report = _run_mutants(tmp_path, (mutant,), "version: 1\nexpected_failures: []\n", "--fuzz", "0")
    assert done.returncode == 1
    failed = {r["id"] for r in report["requirements"] if r["status"] == "failed"}
    assert failed == ({rule, "PLC-4"} if mutant == "utf8_bytes" else {rule})


def test_a_second_bug_beside_the_baselined_mistake_still_fails(tmp_path):
    """UTF-16 counting held by its one UNI-1 entry, and an unrelated bug (createdAt re-formatted): the run fails on
    RES-5, and the UNI-1 entry is not called stale (the gap is not closed)."""
    baseline = _readme_expected_failures("ci.md", "## Expected failures")
    done, report = _run_mutants(tmp_path, ("utf16_units", "timestamp_reformatted"), baseline, "--fuzz", "0")
    assert done.returncode == 1
    failed = {r["id"] for r in report["requirements"] if r["status"] == "failed"}
    assert "RES-5" in failed
    assert "UNI-1" not in failed
    assert report["staleExpectedFailures"] == []
    assert "stale" not in done.stderr


def test_a_baselined_fuzz_difference_still_fails_on_another(tmp_path):
    """The same file, and items newest first too: the fuzz phase goes past the UTF-16 differences and fails on
    the order (SEL-7), which no entry lists."""
    baseline = _readme_expected_failures("ci.md", "## Expected failures")
    done, report = _run_mutants(tmp_path, ("utf16_units", "newest_first"), baseline)
    assert done.returncode == 1
    [fuzz] = [s for s in report["scenarios"] if s["id"].startswith("fuzz::")]
    assert fuzz["status"] == "failed"
    assert fuzz["failedRequirements"] == ["SEL-7"]


def test_a_stale_entry_turns_the_ci_pages_green_run_red(tmp_path):
    """docs/ci.md's file, which turns the UTF-16 run green, plus an entry for a requirement the bug does not break
    (REG-3): the run fails (exit 1) naming the stale entry, and nothing else changes."""
    stale = '  - requirement: REG-3\n    reason: "fixed long ago"\n'
    baseline = _readme_expected_failures("ci.md", "## Expected failures")
    done, report = _run_mutants(tmp_path, ("utf16_units",), baseline + stale)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert (report["counts"]["failed"], report["counts"]["xpassed"]) == (0, 0)
    line = (
        f"{tmp_path / 'known.yaml'}: requirement REG-3 (line {baseline.count(chr(10)) + 1}) matched no failure: "
        "a stale entry fails the run (the gap is closed: remove the entry)"
    )
    assert report["staleExpectedFailures"] == [line]
    assert f"ccweb-conformance: error: {line}" in done.stderr


def test_a_stale_entry_turns_the_documented_run_red(tmp_path):
    """docs/runner.md's file plus an entry for a requirement the bugs do not break: the run fails, naming it."""
    stale = '  - requirement: SEL-2\n    reason: "fixed long ago"\n'
    documented = _readme_expected_failures()
    done, report = _run_mutants(tmp_path, ("utf16_units", "cached_by_size_and_mtime"), documented + stale)
    assert done.returncode == 1
    assert (report["counts"]["failed"], report["counts"]["xpassed"]) == (0, 0)
    line = (
        f"{tmp_path / 'known.yaml'}: requirement SEL-2 (line {documented.count(chr(10)) + 1}) matched no failure: "
        "a stale entry fails the run (the gap is closed: remove the entry)"
    )
    assert report["staleExpectedFailures"] == [line]
    assert f"ccweb-conformance: error: {line}" in done.stderr


def test_the_readme_example_passes_on_the_bugs_it_describes(tmp_path):
    """UTF-16 counting and an (mtime, size) cache, tolerated by docs/runner.md's file, literally."""
    known = tmp_path / "known.yaml"
    known.write_text(_readme_expected_failures(), encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, 'tests'); from mutants.catalogue import MUTANTS\n"
        "MUTANTS['utf16_units'].apply(); MUTANTS['cached_by_size_and_mtime'].apply()\n"
        "from ccweb_conformance.cli import main; sys.exit(main(sys.argv[1:]))\n"
    )
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", script, "run", "--in-process", "--expected-failures", str(known), "--json", str(report)],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    counts = json.loads(report.read_text(encoding="utf-8"))["counts"]
    assert counts["failed"] == 0 and counts["xpassed"] == 0
    assert counts["xfailed"] >= 8
    statuses = {s["name"]: s["status"] for s in json.loads(report.read_text(encoding="utf-8"))["scenarios"]}
    assert statuses["Characters outside the BMP count as one [中文输入-4]"] == "passed"  # no emoji: it passes


def test_the_readme_example_still_catches_what_it_does_not_name(tmp_path):
    """The same file does not hide an unrelated bug (the check can fail); the regression feature's scenarios, where
    the file names two, are enough to show it (the test above runs the whole suite with the file)."""
    known = tmp_path / "known.yaml"
    known.write_text(_readme_expected_failures(), encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, 'tests'); from mutants.catalogue import MUTANTS\n"
        "MUTANTS['utf16_units'].apply()\n"
        "from ccweb_conformance.cli import main; sys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "run", "--in-process", "--tags", "AC-10", "--expected-failures", str(known)],
        cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 1  # the REG-2 scenario entry is strict: it passes here, so XPASS
    assert "XPASS ac10_regression.feature::A rewrite of the same size and time is visible too" in done.stdout
