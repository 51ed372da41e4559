"""``ccweb-conformance export``: the committed cases are a fresh export, valid, and the reference passes them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from paths import REPO
from suite_size import SCENARIOS

import ccweb_spec
from ccweb_conformance.checks.replay import replay_case
from ccweb_conformance.reports.case_export import FORMAT_VERSION

pytestmark = pytest.mark.slow

COMMITTED = REPO / "examples" / "node-server" / "contract" / "cases.json"


def _export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ccweb_conformance.cli", "export", *args],
        capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("export") / "cases.json"
    done = _export("--output", str(path))
    assert done.returncode == 0, done.stderr[-2000:]
    return path.read_text(encoding="utf-8")


def test_the_committed_cases_are_a_fresh_export(fresh):
    assert COMMITTED.read_text(encoding="utf-8") == fresh, (
        "examples/node-server/contract/cases.json drifted: run "
        "'ccweb-conformance export --output examples/node-server/contract/cases.json'"
    )


def test_the_export_validates_and_its_counts_add_up(fresh):
    document = json.loads(fresh)
    assert list(ccweb_spec.cases_validator().iter_errors(document)) == []
    counts = document["counts"]
    assert document["format"] == FORMAT_VERSION
    assert document["contractVersion"] == ccweb_spec.contract_version()
    assert counts["functionLevel"] == len(document["cases"])
    assert counts["mcpLevel"] == len(document["mcpLevel"])
    assert counts["calls"] == sum(s["op"] == "call" for c in document["cases"] for s in c["steps"])
    assert sum(f["functionLevel"] for f in counts["byFeature"].values()) == counts["functionLevel"]
    assert sum(f["mcpLevel"] for f in counts["byFeature"].values()) == counts["mcpLevel"]
    reasons = set(ccweb_spec.case_levels().reasons.values())
    assert {s["reason"] for s in document["mcpLevel"]} <= reasons


def test_every_scenario_of_the_suite_is_in_the_export_once(fresh):
    document = json.loads(fresh)
    names = [c["id"] for c in document["cases"]] + [s["id"] for s in document["mcpLevel"]]
    assert len(names) == len(set(names)) == SCENARIOS


def test_no_function_level_case_claims_an_mcp_only_requirement(fresh):
    levels = ccweb_spec.case_levels()
    for case in json.loads(fresh)["cases"]:
        claimed = [r for r in case["requirements"] if levels.claim_reason(r) or levels.scenario_reason(r)]
        assert claimed == [], case["id"]


def test_the_reference_passes_every_case_through_the_python_harness():
    from ccweb_reference import server  # noqa: PLC0415
    from ccweb_reference.store import SessionStore  # noqa: PLC0415

    def reference(sessions, source, arguments):
        return server.call_tool(SessionStore(sessions), arguments, source)[0]

    document = json.loads(COMMITTED.read_text(encoding="utf-8"))
    failed = {c["id"]: problems for c in document["cases"] if (problems := replay_case(c, reference))}
    assert failed == {}


def test_check_says_which_file_drifted_and_exits_1(fresh, tmp_path, monkeypatch, capsys):
    """In process, the export the module already made standing in for a second one (the recording is the same;
    ``fresh`` runs it as a command, the README test runs ``export --check`` as one)."""
    from ccweb_conformance.cli import main  # noqa: PLC0415
    from ccweb_conformance.commands import export  # noqa: PLC0415

    monkeypatch.setattr(export, "render", lambda: fresh)
    stale = tmp_path / "cases.json"
    stale.write_text("{}\n", encoding="utf-8")
    assert main(["export", "--check", str(stale)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ccweb-conformance: {stale} is out of date; run 'ccweb-conformance export --output {stale}'"
    )
    stale.write_text(fresh, encoding="utf-8")
    assert main(["export", "--check", str(stale)]) == 0


def test_an_output_under_a_file_is_a_usage_error_before_anything_runs(tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    target = tmp_path / "file" / "cases.json"
    done = _export("--output", str(target))
    assert done.returncode == 2
    assert done.stderr == f"ccweb-conformance: error: cannot write '{target}': '{tmp_path / 'file'}' is not a folder\n"
