"""Benchmark: start-up of the quick commands (issue 20 item 7: each under 0.3 s).

    .venv/bin/python bench/bench_startup.py              # medians of 5
    .venv/bin/python bench/bench_startup.py --repeat 9

Each command runs as ``ccweb-conformance ...`` (the installed console script, start-up
included), output thrown away; the table gives per command the median wall time and the
median CPU seconds (user + system, from the child's rusage), with every run's wall time, and
the 1-minute load average before the first run. Figures are printed, never judged.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import ccweb_spec

COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "list": ["list"],
    "check-description TEXT": ["check-description"],  # + the reference's description
}


def _program() -> str:
    """The console script beside this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "ccweb-conformance"
    return str(beside) if beside.exists() else shutil.which("ccweb-conformance") or "ccweb-conformance"


def time_once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    """Run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (default: 5)")
    args = parser.parse_args()
    program = _program()
    COMMANDS["check-description TEXT"].append(ccweb_spec.tool_definition()["description"])
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    print("| command | wall s (median) | CPU s (median) | wall s, every run |")
    print("|---|---:|---:|---|")
    for label, words in COMMANDS.items():
        runs = [time_once([program, *words]) for _ in range(args.repeat)]
        walls = [wall for wall, _ in runs]
        cpus = [cpu for _, cpu in runs]
        every = ", ".join(f"{wall:.2f}" for wall in walls)
        print(f"| `{label}` | {statistics.median(walls):.3f} | {statistics.median(cpus):.3f} | {every} |")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
