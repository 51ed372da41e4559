"""Whole in-process runs with catalogued mutants applied and an expected-failures file: the helpers of the
expected-failures run tests (``test_ci_page_baseline_run.py``, ``test_runner_page_baseline_run.py``,
``test_mistake_charging_run.py``).

A test module's runs go side by side (:func:`run_side_by_side`): one process imports the kit once and forks a child
per run, two at a time (``runner/forked.py``); a whole run mostly waits on the contract's windows. ``python -c`` with
:data:`BATCH` (in the checkout, ``tests`` on the path) is that process: ``OUT_DIR RUNS`` (RUNS a JSON object, a run's
name -> its ``run`` arguments and mutants), each run's exit code to ``OUT_DIR/codes.json``. Tests whose mutant runs
need no expected-failures file start it directly (``suite/test_jobs_run.py``, ``reports/test_framework_hints.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

from paths import REPO

BATCH = (
    "import sys; sys.path.insert(0, 'tests')\n"
    "from runner.cli.expected_failures_runs import main; main(sys.argv[1:])\n"
)


class Run(NamedTuple):
    """A whole ``run --in-process`` with ``mutants`` applied and ``known`` as its expected-failures file."""

    mutants: tuple[str, ...]
    known: str
    extra: tuple[str, ...] = ()
    """Further arguments of ``run``."""
    report: bool = True
    """With ``--json`` (the report is read back)."""


class Ran(NamedTuple):
    """A finished run: its exit code and streams, its JSON report (``{}`` without one), its folder (``known.yaml``)."""

    done: subprocess.CompletedProcess[str]
    report: dict[str, Any]
    folder: Path


def run_side_by_side(folder: Path, runs: dict[str, Run]) -> dict[str, Ran]:
    """Every run, side by side, each in ``folder/NAME`` (its ``known.yaml`` and ``report.json``)."""
    from runner.forked import run_as_group  # noqa: PLC0415

    argvs = {}
    for name, run in runs.items():
        (folder / name).mkdir()
        known = folder / name / "known.yaml"
        known.write_text(run.known, encoding="utf-8")
        argv = ["run", "--in-process", "--expected-failures", str(known)]
        argv += ["--json", str(folder / name / "report.json")] if run.report else []
        argvs[name] = {"argv": [*argv, *run.extra], "mutants": list(run.mutants)}
    batch = run_as_group([sys.executable, "-c", BATCH, str(folder), json.dumps(argvs)], REPO, 900)
    assert batch.returncode == 0, batch.stderr[-3000:]
    codes = json.loads((folder / "codes.json").read_text(encoding="utf-8"))
    ran = {}
    for name, run in runs.items():
        out, err = ((folder / f"{name}.{kind}").read_text(encoding="utf-8") for kind in ("out", "err"))
        done = subprocess.CompletedProcess(argvs[name]["argv"], codes[name], out, err)
        report = json.loads((folder / name / "report.json").read_text(encoding="utf-8")) if run.report else {}
        ran[name] = Ran(done, report, folder / name)
    return ran


def main(argv: list[str]) -> None:
    """The batch process: each run in a forked child, its mutants applied; the exit codes to ``codes.json``."""
    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415

    out_dir, runs = Path(argv[0]), json.loads(argv[1])
    import_the_kit()

    def one(name: str) -> int:
        from mutants.catalogue import MUTANTS  # noqa: PLC0415

        from ccweb_conformance.cli import main as conformance  # noqa: PLC0415

        for mutant in runs[name]["mutants"]:
            MUTANTS[mutant].apply()
        return conformance(runs[name]["argv"])

    codes = each_in_a_child(list(runs), one, out_dir)
    (out_dir / "codes.json").write_text(json.dumps(codes), encoding="utf-8")


def documented_expected_failures(page: str = "runner.md", after: str = "--expected-failures FILE") -> str:
    """The expected-failures YAML block of a docs page, as written there."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    block = text.split(after, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block)
