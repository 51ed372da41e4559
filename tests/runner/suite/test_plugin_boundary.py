"""The kit's pytest plugin is loaded only where it is asked for: a team's own pytest run never imports it.

The runner's session loads it with ``-p`` (and turns auto-loading off); plain pytest takes it the
same way, ``-p ccweb_conformance.suite.plugin``, and then has the ``--ccweb-*`` options.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.session import pytest_arguments
from ccweb_conformance.values import Selection

UNRELATED_TEST = """\
import sys


def test_the_kit_stays_out():
    assert sorted(m for m in sys.modules if m.startswith("ccweb_")) == []
"""


def pytest_in(folder: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_kit_declares_no_pytest11_entry_point():
    assert [e.value for e in entry_points(group="pytest11") if e.value.startswith("ccweb_")] == []


def test_an_unrelated_project_imports_nothing_of_the_kit_and_gets_none_of_its_markers(tmp_path: Path):
    (tmp_path / "test_one.py").write_text(UNRELATED_TEST, encoding="utf-8")
    run = pytest_in(tmp_path, "-q", "test_one.py")
    assert (run.returncode, run.stdout.splitlines()[-1].split(" in ")[0]) == (0, "1 passed")
    markers = pytest_in(tmp_path, "--markers")
    assert [line for line in markers.stdout.splitlines() if line.startswith("@pytest.mark.AC-1:")] == []


def test_the_runners_session_loads_the_plugin_explicitly():
    words = pytest_arguments(Selection(), Path("suite.py"))
    assert "--disable-plugin-autoload" in words
    loaded = [words[i + 1] for i, word in enumerate(words) if word == "-p" and not words[i + 1].startswith("no:")]
    assert loaded == ["pytest_bdd.plugin", "ccweb_conformance.suite.plugin"]


def test_plain_pytest_takes_the_plugin_and_its_options_with_p(tmp_path: Path):
    selection = ["--pyargs", "ccweb_conformance.suite", "--co", "-q", "--ccweb-tags", "AC-1"]
    without = pytest_in(tmp_path, *selection)
    assert without.returncode == 4  # pytest's usage error
    assert "unrecognized arguments: --ccweb-tags" in without.stderr
    listed = pytest_in(tmp_path, "-p", "ccweb_conformance.suite.plugin", *selection)
    total = sum(max(s.examples, 1) for s in feature_scenarios())
    tagged = sum(max(s.examples, 1) for s in feature_scenarios() if "AC-1" in s.tags)
    assert (listed.returncode, listed.stdout.splitlines()[-1].split(" in ")[0]) == (
        0,
        f"{tagged}/{total} tests collected ({total - tagged} deselected)",
    )
