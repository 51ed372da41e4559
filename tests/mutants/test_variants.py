"""No false failures: different but conforming implementations pass the suite.

Each variant runs the whole suite in process (the selected variants in one forked
``run.py batch``, two at a time; the batch split over this file and
``test_variants_second_half.py``, one half per worker). A variant that keeps every SHOULD must pass with no failure
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

from mutants.catalogue import VARIANTS
from mutants.run import RUN_PY, half, run_batch, selected_params
from mutants.verdicts import assert_passes

pytestmark = pytest.mark.slow

NAMES = half(list(VARIANTS), 0)
"""This file's half (the reference and the initialize-era variant among them); the other half is
``test_variants_second_half.py``'s, run on the other worker."""


@pytest.fixture(scope="module")
def variant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    names = selected_params(request, "test_variant_passes") or NAMES
    return run_batch("variant", names, tmp_path_factory.mktemp("variants"))


@pytest.mark.parametrize("name", NAMES)
def test_variant_passes(name: str, variant_runs: dict[str, dict[str, Any]]) -> None:
    assert_passes(name, variant_runs[name])


def test_the_two_halves_are_the_variants() -> None:
    assert sorted(half(list(VARIANTS), 0) + half(list(VARIANTS), 1)) == sorted(VARIANTS)
    assert {"reference", "initialize_era_only"} <= set(NAMES)


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
