"""docs/runner.md's expected-failures file end to end, in whole runs with mutants applied: it tolerates the two bugs
it describes, literally, and still fails the run on a stale entry or on what it does not name."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from paths import REPO
from runner.cli.expected_failures_runs import documented_expected_failures, run_mutants

pytestmark = pytest.mark.slow


def test_a_stale_entry_turns_the_documented_run_red(tmp_path):
    """docs/runner.md's file plus an entry for a requirement the bugs do not break: the run fails, naming it."""
    stale = '  - requirement: SEL-2\n    reason: "fixed long ago"\n'
    documented = documented_expected_failures()
    done, report = run_mutants(tmp_path, ("utf16_units", "cached_by_size_and_mtime"), documented + stale)
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
    known.write_text(documented_expected_failures(), encoding="utf-8")
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
    known.write_text(documented_expected_failures(), encoding="utf-8")
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
