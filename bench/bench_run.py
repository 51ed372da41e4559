"""Benchmark: the wall time of a whole ``ccweb-conformance run`` and where it goes (issue 20 item 7).

    .venv/bin/python bench/bench_run.py                          # the default run (stdio reference), 3 times
    .venv/bin/python bench/bench_run.py --target in-process --target stdio --repeat 3
    .venv/bin/python bench/bench_run.py --tree /tmp/old-checkout # the same run from another checkout's sources
    .venv/bin/python bench/bench_run.py --node-v2                # the main job beside the SDK v2 server, 5 times each
    .venv/bin/python bench/bench_run.py --target fast            # the runner's overhead: bench/fast_server.py, 3 times

Each run is a subprocess (start-up included) with ``--json``; the script prints, per target,
the median of the runs and each run's figures: wall time, CPU seconds of the runner and every
process it started (user + system, from the children's rusage), the time inside scenarios,
the time outside them (start-up, collection, the final audit, reports), the time calls spent
waiting for answers, split into ``conversation_unreadable`` answers (a server's D-14 re-read
window), raw-text waits and the rest, and the fuzz phase; the contract's own waits (the report's ``waits``, summed)
and the run's time beyond them (``durationSeconds`` minus that sum: the runner's overhead, issue 32 item 4, read
against the fast server, target ``fast``).
The load average before each run is printed beside it: on a shared machine wall time follows
the load, CPU seconds much less. Figures are printed, never judged.

``--node-v2`` measures side by side (issue 32): the main job (``ccweb-conformance run``, the bundled
reference; target ``stdio``) and a run against the conforming both-era server on the TypeScript SDK
v2 in ``bench/node-sdk-v2`` (target ``node-v2``), medians of 5 unless ``--repeat`` says otherwise,
and the ratios main job / Node server of the medians' wall and CPU seconds. The server's
``node_modules`` (its own and the Node example's, whose tool logic it imports) are installed with
``npm ci`` first where missing, each install bounded in time. With several targets the runs are
interleaved (one of each, then again), so a change of load falls on every target alike.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
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
TARGETS = ("stdio", "in-process", "http", "node-v2", "fast")
MAIN_JOB = "stdio"
"""The README's main job: ``ccweb-conformance run`` against the bundled reference over stdio."""
NODE_V2 = "node-v2"
FAST = "fast"
REPO = Path(__file__).resolve().parent.parent
FAST_SERVER = REPO / "bench" / "fast_server.py"
NODE_V2_DIR = REPO / "bench" / "node-sdk-v2"
NODE_V2_NEEDS = (REPO / "examples" / "node-server", NODE_V2_DIR)
"""Folders whose ``node_modules`` the SDK v2 server needs: the example's (the imported tool logic) and its own."""
NPM_CI_TIMEOUT_S = 300
DEFAULT_REPEAT = 3
NODE_V2_REPEAT = 5


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
    waits: float
    beyond_waits: float
    exit_code: int


def _command(target: str, report: Path, stdio: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--json", str(report)]
    if stdio is not None:
        command += ["--stdio", stdio]
    elif target == "in-process":
        command.append("--in-process")
    elif target == NODE_V2:
        command += ["--stdio", node_v2_command()]
    elif target == FAST:
        command += ["--stdio", f"{shlex.quote(sys.executable)} {shlex.quote(str(FAST_SERVER))}"]
    elif target == "http":
        reference = f"{sys.executable} -m ccweb_reference.cli --http --port {{port}} --sessions-dir {{sessions_dir}}"
        command += ["--http-cmd", reference, "--url", "http://127.0.0.1:{port}/mcp"]
    return command


def node_v2_command() -> str:
    """The stdio command of the SDK v2 server."""
    node = shutil.which("node") or "node"
    return f"{shlex.quote(node)} {shlex.quote(str(NODE_V2_DIR / 'server.js'))}"


def ensure_node_v2() -> str | None:
    """``npm ci`` where the SDK v2 server's ``node_modules`` are missing; a problem, or None when ready."""
    if shutil.which("node") is None:
        return "node is not on PATH: the SDK v2 server needs Node 20 or later"
    for folder in NODE_V2_NEEDS:
        if (folder / "node_modules").is_dir():
            continue
        npm = shutil.which("npm")
        if npm is None:
            return f"npm is not on PATH: cannot install {folder / 'node_modules'}"
        print(f"bench_run: npm ci in {folder.relative_to(REPO)} ...", file=sys.stderr, flush=True)
        try:
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund"],
                cwd=folder, capture_output=True, text=True, timeout=NPM_CI_TIMEOUT_S, check=False,
            )
        except subprocess.TimeoutExpired:
            return f"npm ci in {folder} took more than {NPM_CI_TIMEOUT_S} s"
        if done.returncode != 0:
            return f"npm ci failed in {folder}:\n{done.stdout}{done.stderr}"
    return None


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
    waits = sum((report.get("waits") or {}).values())
    return {
        "scenarios": inside, "calls": calls, "unreadable": unreadable, "raw_text": raw, "fuzz": fuzz, "waits": waits,
        "beyond_waits": (report.get("durationSeconds") or 0.0) - waits,
    }


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
        waits=parts["waits"],
        beyond_waits=parts["beyond_waits"],
        exit_code=done.returncode,
    )


def _row(label: str, figures: RunFigures) -> str:
    return (
        f"| {label} | {figures.load:.1f} | {figures.wall:.1f} | {figures.cpu:.1f} | {figures.scenarios:.1f} | "
        f"{figures.outside:.1f} | {figures.calls:.1f} | {figures.unreadable:.1f} | {figures.raw_text:.1f} | "
        f"{figures.fuzz:.1f} | {figures.waits:.2f} | {figures.beyond_waits:.2f} | {figures.exit_code} |"
    )


def median_of(runs: list[RunFigures]) -> RunFigures:
    """Each figure's median over the runs (the exit code: the worst)."""
    fields = asdict(runs[0]).keys()
    values = {name: statistics.median(getattr(run, name) for run in runs) for name in fields}
    values["exit_code"] = max(run.exit_code for run in runs)
    return RunFigures(**values)


def ratios(main: RunFigures, node: RunFigures) -> str:
    """The main job's median wall and CPU seconds over the Node server's."""
    wall = main.wall / node.wall if node.wall else float("nan")
    cpu = main.cpu / node.cpu if node.cpu else float("nan")
    return (
        f"main job / {NODE_V2}: wall {main.wall:.2f} s / {node.wall:.2f} s = {wall:.2f}x, "
        f"CPU {main.cpu:.2f} s / {node.cpu:.2f} s = {cpu:.2f}x"
    )


def main() -> int:
    """Run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--target", action="append", choices=TARGETS,
        help="stdio (default: the main job, the bundled reference), in-process, http, node-v2 (bench/node-sdk-v2), "
        "fast (bench/fast_server.py: the runner's overhead beyond the contract's waits)",
    )
    parser.add_argument(
        "--node-v2", action="store_true",
        help="the main job beside the SDK v2 server (--target stdio --target node-v2), medians of 5, and their ratios",
    )
    parser.add_argument(
        "--repeat", type=int,
        help=f"runs per target (default: {DEFAULT_REPEAT}; {NODE_V2_REPEAT} with --node-v2 or --target node-v2)",
    )
    parser.add_argument("--tree", type=Path, help="a checkout whose sources to run instead of the installed ones")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    parser.add_argument("--stdio", help="run against this stdio server command instead (target label: stdio)")
    args = parser.parse_args()
    targets = list(dict.fromkeys([*(args.target or []), *([MAIN_JOB, NODE_V2] if args.node_v2 else [])]))
    targets = targets or [MAIN_JOB]
    repeat = args.repeat or (NODE_V2_REPEAT if NODE_V2 in targets else DEFAULT_REPEAT)
    if NODE_V2 in targets and (problem := ensure_node_v2()) is not None:
        print(f"bench_run: {problem}", file=sys.stderr)
        return 2
    print(
        "| target / run | load | wall s | CPU s | in scenarios s | outside s | calls s | "
        "unreadable s | raw text s | fuzz s | waits s | beyond waits s | exit |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    runs: dict[str, list[RunFigures]] = {target: [] for target in targets}
    with tempfile.TemporaryDirectory(prefix="ccweb-bench-run-") as work:
        for number in range(1, repeat + 1):  # interleaved: a change of load falls on every target alike
            for target in targets:
                stdio = args.stdio if target == MAIN_JOB else None
                run = measure(target, args.tree, Path(work), number, stdio)
                runs[target].append(run)
                print(_row(f"{target} #{number}", run), flush=True)
    medians = {target: median_of(figures) for target, figures in runs.items()}
    for target, median in medians.items():
        print(_row(f"**{target} median of {repeat}**", median))
    if MAIN_JOB in medians and NODE_V2 in medians and args.stdio is None:
        print()
        print(ratios(medians[MAIN_JOB], medians[NODE_V2]))
    if args.json is not None:
        collected = {target: [asdict(run) for run in figures] for target, figures in runs.items()}
        args.json.write_text(json.dumps(collected, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
