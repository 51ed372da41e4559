"""No false failures: different but conforming implementations pass the suite.

Each variant runs the whole suite in process (the selected variants in forked ``run.py batch``
runs, two at a time; the batch dealt into parts, each scheduled as a file of its own, one worker
each: ``batches.py``). A variant that keeps every SHOULD must pass with no failure
and no warning; one that gives up a SHOULD (text-only or structured-only results give up
PLC-3) must still exit 0, with exactly that requirement's scenarios as warnings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

from mutants.batches import Batches, part_of
from mutants.catalogue import VARIANTS
from mutants.run import RUN_PY
from mutants.verdicts import assert_passes

pytestmark = pytest.mark.slow

NAMES = list(VARIANTS)
ERA_PAIR = ("initialize_era_only", "reference")
"""Two variants compared by one test: in one part of the batch, so that the test's worker runs only that part."""


@pytest.fixture(scope="module")
def variant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Batches:
    return Batches("variant", NAMES, request, tmp_path_factory.mktemp("variants"), "test_variant_passes")


@pytest.mark.parametrize("name", NAMES)
def test_variant_passes(name: str, variant_runs: Batches) -> None:
    assert_passes(name, variant_runs(name))


def test_the_era_pair_shares_a_part_of_the_batch() -> None:
    assert part_of(NAMES, ERA_PAIR[0]) == part_of(NAMES, ERA_PAIR[1])


@pytest.mark.parametrize("name", [ERA_PAIR[0]])  # named after the pair: scheduled with its part of the batch
def test_initialize_era_variant_really_falls_back(name: str, variant_runs: Batches) -> None:
    """The initialize-era variant is served over the legacy handshake; the reference over 2026-07-28."""
    assert variant_runs(ERA_PAIR[0])["report"]["protocolVersion"] != "2026-07-28"
    assert variant_runs(ERA_PAIR[1])["report"]["protocolVersion"] == "2026-07-28"


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
