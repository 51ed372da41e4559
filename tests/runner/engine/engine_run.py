"""The whole suite run two ways against the in-process reference: ``ccweb-conformance run`` (the runner's own
engine) and plain pytest with the kit's plugin (pytest-bdd running the same step functions).

``python -m runner.engine.engine_run OUT_DIR NAME...`` (``tests`` on the path; ``-`` names the reference, any other
name a mutant of ``tests/mutants``) imports the runner, the reference, pytest and pytest-bdd and reads the suite once,
then forks one child per name, two at a time: each applies its mutant and writes both runs' verdicts per scenario
(``file.feature::name [example]`` -> passed, failed, skipped, xfailed) to ``OUT_DIR/NAME.json`` as one JSON object,
its output to ``OUT_DIR/NAME.log``. Both runs are ``--strict`` (a failed SHOULD scenario is failed, as pytest shows
it with ``--ccweb-strict``) and without the fuzz phase and reruns, which only ``run`` has. pytest runs with
``--tb=no``: the verdicts are read from its JUnit report, and rendering each failure's traceback (source files
parsed again per entry) cost a mutant's run more than a third of its CPU.
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
AT_A_TIME = 2
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
    """In a forked child: output to ``NAME.log``, the mutant applied, both runs' verdicts to ``NAME.json``."""
    log = os.open(out_dir / f"{name}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    try:
        from mutants.run import _apply  # noqa: PLC0415 (tests/ on the path)

        if name != REFERENCE and not _apply("mutant", name):
            return 2
        with tempfile.TemporaryDirectory(prefix="engine-run-") as folder:
            engine = engine_verdicts(Path(folder) / "report.json")
            plain = pytest_verdicts(Path(folder) / "junit.xml")
        (out_dir / f"{name}.json").write_text(json.dumps({"engine": engine, "pytest": plain}), encoding="utf-8")
        return 0
    except BaseException as exc:
        print(f"engine_run: {name} crashed: {exc!r}", file=sys.stderr)
        return 3
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def main(argv: list[str]) -> int:
    """Run both paths per name in forked children, ``AT_A_TIME`` at once; exit 1 if a child failed."""
    from mutants.run import _bind_the_suite_once  # noqa: PLC0415 (tests/ on the path)

    import ccweb_conformance.suite.plugin  # noqa: PLC0415 (imported once, before forking)
    import ccweb_conformance.transport.inprocess  # noqa: F401, PLC0415
    import ccweb_reference.server  # noqa: F401, PLC0415

    out_dir, names = Path(argv[0]), argv[1:]
    out_dir.mkdir(parents=True, exist_ok=True)
    _bind_the_suite_once()
    sys.stdout.flush()
    sys.stderr.flush()
    failed, pending, running = 0, list(names), set[int]()
    while pending or running:
        while pending and len(running) < AT_A_TIME:
            name = pending.pop(0)
            pid = os.fork()
            if pid == 0:  # the child: never back into this loop, whatever happens
                code = 3
                try:
                    code = both_paths(name, out_dir)
                finally:
                    os._exit(code)
            running.add(pid)
        pid, status = os.wait()
        running.discard(pid)
        failed |= os.waitstatus_to_exitcode(status) != 0
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
