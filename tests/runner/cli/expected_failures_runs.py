"""Whole in-process runs with catalogued mutants applied and an expected-failures file: the helpers of the
expected-failures run tests (``test_ci_page_baseline_run.py``, ``test_runner_page_baseline_run.py``,
``test_mistake_charging_run.py``).

A test module's runs go side by side (:func:`run_side_by_side`): one process imports the kit once and forks a child
per run, two at a time (``runner/forked.py``); a whole run mostly waits on the contract's windows. ``python -c`` with
:data:`BATCH` (in the checkout, ``tests`` on the path) is that process: ``OUT_DIR RUNS`` (RUNS a JSON object, a run's
name -> its ``run`` arguments and what its child sets up first, :func:`main`), each run's exit code to
``OUT_DIR/codes.json``. Tests whose runs need no expected-failures file start it through :func:`forked_runs`, or
directly (``suite/test_jobs_run.py``, ``reports/test_framework_hints.py``).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

from paths import REPO

BATCH = (
    "import os, sys; sys.path.insert(0, os.path.abspath('tests'))\n"
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
    argvs = {}
    for name, run in runs.items():
        (folder / name).mkdir()
        known = folder / name / "known.yaml"
        known.write_text(run.known, encoding="utf-8")
        argv = ["run", "--in-process", "--expected-failures", str(known)]
        argv += ["--json", str(folder / name / "report.json")] if run.report else []
        argvs[name] = {"argv": [*argv, *run.extra], "mutants": list(run.mutants)}
    done = forked_runs(folder, argvs)
    ran = {}
    for name, run in runs.items():
        report = json.loads((folder / name / "report.json").read_text(encoding="utf-8")) if run.report else {}
        ran[name] = Ran(done[name], report, folder / name)
    return ran


def forked_runs(
    folder: Path, runs: dict[str, dict[str, Any]], at_a_time: int = 2
) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every run of ``runs`` (as :func:`main` reads them) forked from one process that imported the kit once,
    ``at_a_time`` at once, in order (one: each after the one before has ended); each run's exit code and streams
    (``folder/NAME.out``, ``NAME.err``)."""
    from runner.forked import run_as_group  # noqa: PLC0415

    batch = run_as_group([sys.executable, "-c", BATCH, str(folder), json.dumps(runs), str(at_a_time)], REPO, 900)
    assert batch.returncode == 0, batch.stderr[-3000:]
    codes = json.loads((folder / "codes.json").read_text(encoding="utf-8"))
    done = {}
    for name, run in runs.items():
        out, err = ((folder / f"{name}.{kind}").read_text(encoding="utf-8") for kind in ("out", "err"))
        done[name] = subprocess.CompletedProcess(run["argv"], codes[name], out, err)
    return done


def _set_up(run: dict[str, Any]) -> None:
    """In a run's child, before the run: its mutants and variants applied, each of its ``calls``
    (``module:function``) called with its arguments, its environment variables set and its working directory
    entered."""
    from mutants.catalogue import MUTANTS, VARIANTS  # noqa: PLC0415

    for mutant in run.get("mutants", ()):
        MUTANTS[mutant].apply()
    for variant in run.get("variants", ()):
        VARIANTS[variant].apply()
    for call in run.get("calls", ()):
        module, _, function = call.partition(":")
        getattr(importlib.import_module(module), function)(run["argv"])
    os.environ.update(run.get("env", {}))
    if "cwd" in run:
        os.chdir(run["cwd"])


def main(argv: list[str]) -> None:
    """The batch process (``OUT_DIR RUNS [AT_A_TIME]``, two by default): each run in a forked child, set up as it
    names (:func:`_set_up`: ``mutants``, ``variants``, ``env``, ``cwd``, ``calls``), then ``ccweb-conformance`` with
    its ``argv``; the exit codes to ``codes.json``."""
    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415

    out_dir, runs, at_a_time = Path(argv[0]), json.loads(argv[1]), int(argv[2]) if len(argv) > 2 else 2
    import_the_kit()

    def one(name: str) -> int:
        from ccweb_conformance.cli import main as conformance  # noqa: PLC0415

        _set_up(runs[name])
        return conformance(runs[name]["argv"])

    codes = each_in_a_child(list(runs), one, out_dir, at_a_time)
    (out_dir / "codes.json").write_text(json.dumps(codes), encoding="utf-8")


def documented_expected_failures(page: str = "runner.md", after: str = "--expected-failures FILE") -> str:
    """The expected-failures YAML block of a docs page, as written there."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    block = text.split(after, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block)
