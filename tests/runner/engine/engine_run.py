"""One feature run two ways against the in-process reference: through the engine, and through pytest.

``python -m runner.engine.engine_run [MUTANT] FEATURE`` (``tests`` on the path) prints both runs'
verdicts per scenario as one JSON object, after applying the mutant of ``tests/mutants`` if named.
"""

from __future__ import annotations

import json
import sys
import tempfile
from importlib.resources import files
from pathlib import Path

import pytest

import ccweb_spec
from ccweb_conformance.checks.ledger import SessionsLedger
from ccweb_conformance.cli import main as conformance
from ccweb_conformance.engine.executor import run_scenario
from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.engine.scenarios import read_feature
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.world import World, declared_output_schema
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.values import target_of

FEATURES_DIR = Path(str(files("ccweb_features")))
SPEC_ORDER = [r.id for r in ccweb_spec.requirements()]


def engine_verdicts(feature: str, root: Path) -> dict[str, str]:
    """Scenario name -> passed / failed / skipped, each scenario on a World of its own, files removed after."""
    steps.load()
    workspace = Workspace(None, root=root)
    sessions_dir = workspace.open()
    ledger = SessionsLedger(sessions_dir)
    target = make_target(target_of(RunnerOptions(in_process=True)), sessions_dir)
    verdicts: dict[str, str] = {}
    try:
        schema = declared_output_schema(target)
        for number, scenario in enumerate(read_feature(FEATURES_DIR / feature), start=1):
            scenario_files = workspace.scenario(number)
            ledger.register(scenario_files)
            world = World(target, scenario_files, ledger=ledger, output_schema=schema)
            world.requirements = tuple(r for r in SPEC_ORDER if r in scenario.tags)
            try:
                outcome = run_scenario(scenario, STEPS, world, skip=(pytest.skip.Exception,))
            finally:
                for cleanup in reversed(world.cleanups):
                    cleanup()
                ledger.retire(scenario_files)
            verdicts[scenario.name] = outcome.status
    finally:
        target.close()
        workspace.close()
    return verdicts


def pytest_verdicts(feature: str, report: Path) -> dict[str, str]:
    """Scenario name -> status, from ``ccweb-conformance run --in-process --strict`` on that feature's scenarios.

    ``--strict``: a failed SHOULD scenario is failed, not a warning (the engine's verdicts are the steps'
    alone; the warning is the run's rule for SHOULD-level scenarios, applied where results are collected).
    """
    selection = ["-k", feature.removesuffix(".feature")]
    conformance(["run", "--in-process", "--strict", "--fuzz", "0", *selection, "--json", str(report)])
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return {s["name"]: s["status"] for s in scenarios if s["file"] == feature}


def main(argv: list[str]) -> int:
    """Print {"engine": ..., "pytest": ...} for the feature, under the mutant when one is named."""
    *mutant, feature = argv
    if mutant:
        from mutants.run import _apply  # noqa: PLC0415 (only when a mutant is asked for)

        if not _apply("mutant", mutant[0]):
            return 2
    with tempfile.TemporaryDirectory(prefix="engine-run-") as folder:
        engine = engine_verdicts(feature, Path(folder))
        pytest_run = pytest_verdicts(feature, Path(folder) / "report.json")
    print(json.dumps({"engine": engine, "pytest": pytest_run}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
