"""One feature run two ways against the in-process reference: through the engine, and through plain pytest with
the kit's plugin.

``python -m runner.engine.engine_run [MUTANT] FEATURE`` (``tests`` on the path) prints both runs'
verdicts per scenario as one JSON object, after applying the mutant of ``tests/mutants`` if named.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from importlib.resources import as_file, files
from pathlib import Path
from xml.etree import ElementTree

import pytest

import ccweb_spec
from ccweb_conformance.checks.ledger import SessionsLedger
from ccweb_conformance.engine.executor import run_scenario
from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.engine.scenarios import read_feature
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import RunnerOptions, pytest_flags
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.planned import plan_scenarios
from ccweb_conformance.suite.world import World, declared_output_schema
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import target_of

FEATURES_DIR = Path(str(files("ccweb_features")))
SPEC_ORDER = [r.id for r in ccweb_spec.requirements()]


def engine_verdicts(feature: str, root: Path) -> dict[str, str]:
    """Scenario name -> passed / failed / skipped, each scenario on a World of its own, files removed after."""
    steps.load()
    workspace = Workspace(None, root=root)
    sessions_dir = workspace.open()
    context = RunContext()
    ledger = SessionsLedger(sessions_dir, waits=context.waits)
    target = make_target(target_of(RunnerOptions(in_process=True)), sessions_dir, context)
    verdicts: dict[str, str] = {}
    try:
        schema = declared_output_schema(target)
        for number, scenario in enumerate(read_feature(FEATURES_DIR / feature), start=1):
            scenario_files = workspace.scenario(number)
            ledger.register(scenario_files)
            world = World(target, scenario_files, ledger=ledger, output_schema=schema)
            world.requirements = tuple(r for r in SPEC_ORDER if r in scenario.tags)
            try:
                outcome = run_scenario(scenario, STEPS, world)
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
    """Scenario name -> status, from plain pytest with the kit's plugin (``--ccweb-in-process --ccweb-strict``) on
    that feature's scenarios, read from pytest's own JUnit report.

    ``--strict``: a failed SHOULD scenario is failed, not a warning (the engine's verdicts are the steps'
    alone; the warning is the run's rule for SHOULD-level scenarios, applied where results are collected).
    """
    options = RunnerOptions(in_process=True, strict=True, keyword=feature.removesuffix(".feature"))
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        pytest.main(
            [
                str(suite),
                "-q",
                "-c",
                os.devnull,
                "--rootdir",
                str(suite.parent),
                "-p",
                "no:cacheprovider",
                "--disable-plugin-autoload",
                "-p",
                "pytest_bdd.plugin",
                "-p",
                "ccweb_conformance.suite.plugin",
                "-o",
                "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=true",
                "--junitxml",
                str(report),
                *pytest_flags(options),
            ]
        )
    names = {planned.test_name: planned.name for planned, _ in plan_scenarios(FEATURES_DIR)}
    verdicts = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        status = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        verdicts[names[case.get("name", "")]] = status
    return verdicts


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
