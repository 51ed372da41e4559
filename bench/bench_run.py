"""Benchmark: the wall time of a whole ``ccweb-conformance run`` and where it goes (issue 20 item 7).

    .venv/bin/python bench/bench_run.py                          # the default run (stdio reference), 3 times
    .venv/bin/python bench/bench_run.py --target in-process --target stdio --repeat 3
    .venv/bin/python bench/bench_run.py --tree /tmp/old-checkout # the same run from another checkout's sources

Each run is a subprocess (start-up included) with ``--json``; the script prints, per target,
the median of the runs and each run's figures: wall time, CPU seconds of the runner and every
process it started (user + system, from the children's rusage), the time inside scenarios,
the time outside them (start-up, collection, the final audit, reports), the time calls spent
waiting for answers, split into ``conversation_unreadable`` answers (a server's D-14 re-read
window), raw-text waits and the rest, and the fuzz phase.
The load average before each run is printed beside it: on a shared machine wall time follows
the load, CPU seconds much less. Figures are printed, never judged.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

PACKAGE_DIRS = ("conformance", "reference", "spec", "features")
"""The source folders of a checkout, put first on PYTHONPATH by ``--tree``."""
FUZZ_FEATURE = "Differential fuzzing"
TARGETS = ("stdio", "in-process", "http")


@dataclass(frozen=True)
class RunFigures:
    """One run's figures, in seconds (``load``: the 1-minute load average when it started)."""

    load: float
    wall: float
    cpu: float
    scenarios: float
    outside: float
    calls: float
    unreadable: float
    raw_text: float
    fuzz: float
    exit_code: int


def _command(target: str, report: Path, stdio: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--json", str(report)]
    if stdio is not None:
        command += ["--stdio", stdio]
    elif target == "in-process":
        command.append("--in-process")
    elif target == "http":
        reference = f"{sys.executable} -m ccweb_reference.cli --http --port {{port}} --sessions-dir {{sessions_dir}}"
        command += ["--http-cmd", reference, "--url", "http://127.0.0.1:{port}/mcp"]
    return command


def _environment(tree: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if tree is not None:
        paths = [str(tree / name) for name in PACKAGE_DIRS]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    return env


def _breakdown(report: dict[str, Any]) -> dict[str, float]:
    scenarios = report["scenarios"]
    unreadable = raw = calls = fuzz = 0.0
    for scenario in scenarios:
        if scenario["feature"] == FUZZ_FEATURE:
            fuzz += scenario["durationSeconds"] or 0.0
        for exchange in scenario["transcript"] or []:
            seconds = (exchange.get("elapsedMs") or 0.0) / 1000
            calls += seconds
            if exchange.get("request") is None:
                raw += seconds
            elif "conversation_unreadable" in json.dumps(exchange.get("response"))[:20000]:
                unreadable += seconds
    inside = sum(s["durationSeconds"] or 0.0 for s in scenarios)
    return {"scenarios": inside, "calls": calls, "unreadable": unreadable, "raw_text": raw, "fuzz": fuzz}


def measure(target: str, tree: Path | None, workdir: Path, number: int, stdio: str | None = None) -> RunFigures:
    """One run of the suite against ``target``, timed from outside."""
    report_path = workdir / f"run-{target}-{number}.json"
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        _command(target, report_path, stdio), env=_environment(tree), capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = json.loads(report_path.read_text(encoding="utf-8"))
    parts = _breakdown(report)
    return RunFigures(
        load=load,
        wall=wall,
        cpu=cpu,
        scenarios=parts["scenarios"],
        outside=wall - parts["scenarios"],
        calls=parts["calls"],
        unreadable=parts["unreadable"],
        raw_text=parts["raw_text"],
        fuzz=parts["fuzz"],
        exit_code=done.returncode,
    )


def _row(label: str, figures: RunFigures) -> str:
    return (
        f"| {label} | {figures.load:.1f} | {figures.wall:.1f} | {figures.cpu:.1f} | {figures.scenarios:.1f} | "
        f"{figures.outside:.1f} | {figures.calls:.1f} | {figures.unreadable:.1f} | {figures.raw_text:.1f} | "
        f"{figures.fuzz:.1f} | {figures.exit_code} |"
    )


def median_of(runs: list[RunFigures]) -> RunFigures:
    """Each figure's median over the runs (the exit code: the worst)."""
    fields = asdict(runs[0]).keys()
    values = {name: statistics.median(getattr(run, name) for run in runs) for name in fields}
    values["exit_code"] = max(run.exit_code for run in runs)
    return RunFigures(**values)


def main() -> int:
    """Run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", choices=TARGETS, help="stdio (default), in-process, http")
    parser.add_argument("--repeat", type=int, default=3, help="runs per target (default: 3)")
    parser.add_argument("--tree", type=Path, help="a checkout whose sources to run instead of the installed ones")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--stdio", help="run against this stdio server command instead (target label: stdio)")
    args = parser.parse_args()
    targets = args.target or ["stdio"]
    print(
        "| target / run | load | wall s | CPU s | in scenarios s | outside s | calls s | "
        "unreadable s | raw text s | fuzz s | exit |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    collected: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="ccweb-bench-run-") as work:
        for target in targets:
            stdio = args.stdio if target == "stdio" else None
            runs = [measure(target, args.tree, Path(work), n, stdio) for n in range(1, args.repeat + 1)]
            for number, run in enumerate(runs, start=1):
                print(_row(f"{target} #{number}", run))
            print(_row(f"**{target} median of {len(runs)}**", median_of(runs)))
            collected[target] = [asdict(run) for run in runs]
    if args.json is not None:
        args.json.write_text(json.dumps(collected, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
