"""The whole suite run two ways against the in-process reference: ``ccweb-conformance run`` (the runner's own
engine) and plain pytest with the kit's plugin (pytest-bdd running the same step functions).

``python -m runner.engine.engine_run OUT_DIR NAME...`` (``tests`` on the path; ``-`` names the reference, any other
name a mutant of ``tests/mutants``) imports the runner, the reference, pytest and pytest-bdd and reads the suite
once, then forks one child per name, two at a time (``runner/forked.py``): each applies its mutant and writes both
runs' verdicts per scenario (``file.feature::name [example]`` -> passed, failed, skipped, xfailed) to
``OUT_DIR/NAME.json`` as one JSON object, its output to ``OUT_DIR/NAME.out`` and ``NAME.err``. Both runs are
``--strict`` (a failed SHOULD scenario is failed, as pytest shows it with ``--ccweb-strict``) and without the fuzz
phase and reruns, which only ``run`` has. pytest runs with ``--tb=no``: the verdicts are read from its JUnit
report, and rendering each failure's traceback (source files parsed again per entry) was a large share of a failing
mutant's run.
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
from plugin_flags import pytest_flags

from ccweb_conformance.cli import main as conformance
from ccweb_conformance.engine.features import parse_features
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.suite.planned import plan_scenarios

FEATURES_DIR = Path(str(files("ccweb_features")))
REFERENCE = "-"


def engine_verdicts(report: Path) -> dict[str, str]:
    """Scenario ID -> status, from ``ccweb-conformance run --in-process --strict``'s JSON report."""
    conformance(["run", "--in-process", "--strict", "--fuzz", "0", "--no-rerun", "--json", str(report)])
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return {f"{s['file']}::{s['name']}": s["status"] for s in scenarios if s["file"].endswith(".feature")}


def pytest_verdicts(report: Path) -> dict[str, str]:
    """Scenario ID -> status, from plain pytest with the kit's plugin (``--ccweb-in-process --ccweb-strict``), read
    from pytest's own JUnit report."""
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        arguments = [str(suite), "-q", "-c", os.devnull, "--rootdir", str(suite.parent), "--disable-plugin-autoload"]
        arguments += ["-p", "no:cacheprovider", "-p", "pytest_bdd.plugin", "-p", "ccweb_conformance.suite.plugin"]
        arguments += ["-o", "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=true", "--tb=no"]
        pytest.main([*arguments, "--junitxml", str(report), *pytest_flags(RunnerOptions(in_process=True, strict=True))])
    names = {planned.test_name: planned.nodeid for planned, _ in plan_scenarios(parse_features(FEATURES_DIR))}
    verdicts = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        skipped = case.find("skipped")
        xfailed = skipped is not None and skipped.get("type") == "pytest.xfail"
        status = (
            "failed"
            if kinds & {"failure", "error"}
            else "xfailed"
            if xfailed
            else "skipped"
            if skipped is not None
            else "passed"
        )
        verdicts[names[case.get("name", "")]] = status
    return verdicts


def both_paths(name: str, out_dir: Path) -> int:
    """In a forked child: the mutant applied, both runs' verdicts to ``OUT_DIR/NAME.json``."""
    from mutants.run import _apply  # noqa: PLC0415 (tests/ on the path)

    if name != REFERENCE and not _apply("mutant", name):
        return 2
    with tempfile.TemporaryDirectory(prefix="engine-run-") as folder:
        engine = engine_verdicts(Path(folder) / "report.json")
        plain = pytest_verdicts(Path(folder) / "junit.xml")
    (out_dir / f"{name}.json").write_text(json.dumps({"engine": engine, "pytest": plain}), encoding="utf-8")
    return 0


def main(argv: list[str]) -> int:
    """Run both paths per name in forked children, two at a time; exit 1 if a child failed."""
    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415 (tests/ on the path)

    out_dir = Path(argv[0])
    import_the_kit()
    codes = each_in_a_child(argv[1:], lambda name: both_paths(name, out_dir), out_dir)
    return int(any(codes.values()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
