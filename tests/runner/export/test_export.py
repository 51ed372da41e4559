"""``ccweb-conformance export``: the committed cases are a fresh export, valid, and the reference passes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO
from runner.imported_modules import imported
from suite_size import SCENARIOS

import ccweb_spec
from ccweb_conformance.checks.replay import replay_case
from ccweb_conformance.reports.case_export import FORMAT_VERSION

pytestmark = pytest.mark.slow

COMMITTED = REPO / "examples" / "node-server" / "contract" / "cases.json"
SHIPPED_HARNESS = REPO / "conformance" / "ccweb_conformance" / "harness" / "contract-cases.js"


def _export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ccweb_conformance.cli", "export", *args],
        capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.fixture(scope="module")
def export_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, list[str]]:
    """A fresh ``export --output FOLDER/cases.json`` in an interpreter of its own: the folder, the exit code and the
    pytest modules it imported (``runner/imported_modules.py``)."""
    path = tmp_path_factory.mktemp("export") / "cases.json"
    [(code, modules)] = imported(tmp_path_factory.mktemp("export-run"), ["export", "--output", str(path)])
    return path.parent, code, modules


@pytest.fixture(scope="module")
def exported(export_run: tuple[Path, int, list[str]]) -> Path:
    """The fresh export's folder."""
    folder, code, _ = export_run
    assert code == 0
    return folder


@pytest.fixture(scope="module")
def fresh(exported: Path) -> str:
    return (exported / "cases.json").read_text(encoding="utf-8")


def test_export_imports_no_pytest(export_run: tuple[Path, int, list[str]]) -> None:
    """``export`` runs the suite on the runner's own engine (D-17): pytest and pytest-bdd are never imported, as for
    ``run`` (``tests/runner/cli/test_no_pytest.py``)."""
    _, code, modules = export_run
    assert (code, modules) == (0, [])


def test_output_writes_the_shipped_node_harness_beside_the_cases_and_the_example_holds_it(exported):
    assert sorted(p.name for p in exported.iterdir()) == ["cases.json", "contract-cases.js"]
    shipped = SHIPPED_HARNESS.read_bytes()
    assert (exported / "contract-cases.js").read_bytes() == shipped
    assert (COMMITTED.parent / "contract-cases.js").read_bytes() == shipped, (
        "examples/node-server/contract/contract-cases.js drifted: run "
        "'ccweb-conformance export --output examples/node-server/contract/cases.json'"
    )


def test_the_hand_computed_cases_are_exported_with_their_hand_computed_results(fresh):
    document = json.loads(fresh)
    by_id = {c["id"]: c for c in document["cases"]}
    for case in ccweb_spec.core_cases():
        exported = by_id[f"core_cases.yaml::{case['name']}"]
        assert exported["requirements"] == case["requirements"]
        calls = [s for s in exported["steps"] if s["op"] == "call"]
        assert len(calls) == 1
        assert calls[0]["expect"] == {"result": case["expected"]}
        assert calls[0]["arguments"] == {
            "conversationId": "c", **{k: case[k] for k in ("limit", "maxChars") if k in case}
        }
    assert document["counts"]["byFeature"]["core_cases.yaml"] == {
        "functionLevel": len(ccweb_spec.core_cases()), "mcpLevel": 0
    }


def test_the_export_names_what_only_the_run_proves(fresh):
    runner_only = json.loads(fresh)["runnerOnly"]
    assert [entry["requirement"] for entry in runner_only] == ["REG-2", "RO-1", "RO-2"]
    assert "left unchanged for seconds" in runner_only[0]["what"]
    assert "after the call returned" in runner_only[1]["what"]


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
    assert len(names) == len(set(names)) == SCENARIOS + len(ccweb_spec.core_cases())


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

    monkeypatch.setattr(export, "render", lambda context: fresh)
    stale = tmp_path / "cases.json"
    stale.write_text("{}\n", encoding="utf-8")
    assert main(["export", "--check", str(stale)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ccweb-conformance: {stale} is out of date; run 'ccweb-conformance export --output {stale}'"
    )
    stale.write_text(fresh, encoding="utf-8")
    assert main(["export", "--check", str(stale)]) == 0
    harness = tmp_path / "contract-cases.js"
    harness.write_text("// an older harness\n", encoding="utf-8")
    assert main(["export", "--check", str(stale)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"ccweb-conformance: {harness} is out of date; run 'ccweb-conformance export --output {stale}'"
    )
    harness.write_bytes(SHIPPED_HARNESS.read_bytes())
    assert main(["export", "--check", str(stale)]) == 0


def test_an_output_under_a_file_is_a_usage_error_before_anything_runs(tmp_path):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    target = tmp_path / "file" / "cases.json"
    done = _export("--output", str(target))
    assert done.returncode == 2
    assert done.stderr == f"ccweb-conformance: error: cannot write '{target}': '{tmp_path / 'file'}' is not a folder\n"
