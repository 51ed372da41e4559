"""No false failures: different but conforming implementations pass the suite.

Each variant runs the whole suite in process (the selected variants in one forked
``run.py batch``, two at a time). A variant that keeps every SHOULD must pass with no failure
and no warning; one that gives up a SHOULD (text-only or structured-only results give up
PLC-3) must still exit 0, with exactly that requirement's scenarios as warnings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import REPO
from suite_size import HTTP_ONLY, ROOT_SKIPS

from mutants.catalogue import VARIANTS
from mutants.run import RUN_PY, run_batch, selected_params


@pytest.fixture(scope="module")
def variant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    names = selected_params(request, "test_variant_passes") or list(VARIANTS)
    return run_batch("variant", names, tmp_path_factory.mktemp("variants"))


def _problems(report: dict[str, Any], status: str) -> list[str]:
    return [f"{s['name']}: {s['message']}"[:600] for s in report["scenarios"] if s["status"] == status]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_passes(name: str, variant_runs: dict[str, dict[str, Any]]) -> None:
    variant = VARIANTS[name]
    run = variant_runs[name]
    assert run["report"] is not None, f"no report (exit {run['exit']}):\n{run['log'][-3000:]}"
    report = run["report"]
    failures = _problems(report, "failed")
    assert run["exit"] == 0 and not failures, f"FALSE FAILURE of variant {name}: " + "\n".join(failures)
    warned = {r for s in report["scenarios"] if s["status"] == "warning" for r in s["failedRequirements"]}
    assert warned == set(variant.warnings), _problems(report, "warning")
    # every warning is charged to the requirements the variant gives up (a scenario tagged with one of them may
    # still pass when its failing check proves another requirement), and a variant that gives some up warns
    warnings = [s for s in report["scenarios"] if s["status"] == "warning"]
    assert all(set(s["failedRequirements"]) <= set(variant.warnings) for s in warnings), _problems(report, "warning")
    assert report["counts"]["warning"] == len(warnings) and bool(warnings) == bool(variant.warnings)
    counts = report["counts"]
    # in process the HTTP-only scenarios are skipped, and a root runner skips the unreadable-file one: never a pass
    assert counts["skipped"] == HTTP_ONLY + ROOT_SKIPS
    assert counts["passed"] + counts["warning"] + counts["skipped"] == counts["total"]


def test_initialize_era_variant_really_falls_back(variant_runs: dict[str, dict[str, Any]]) -> None:
    """The initialize-era variant is served over the legacy handshake; the reference over 2026-07-28."""
    assert variant_runs["initialize_era_only"]["report"]["protocolVersion"] != "2026-07-28"
    assert variant_runs["reference"]["report"]["protocolVersion"] == "2026-07-28"


def test_variant_passes_over_real_stdio(tmp_path: Path) -> None:
    serve = f"{sys.executable} {RUN_PY} serve variant initialize_era_only --sessions-dir {{sessions_dir}}"
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", serve, "--tags", "AC-3,ERRORS"]
    command += ["--json", str(report)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["transport"] == "stdio"
    assert data["protocolVersion"] != "2026-07-28"
