"""Benchmark: the runner's own CPU per run, the servers' processes left out (issue 44, "Done when").

    .venv/bin/python bench/runner_cpu.py                          # 5 runs against bench/fast_server.py
    .venv/bin/python bench/runner_cpu.py --repeat 3 --tree OLD    # this checkout and OLD's sources, alternated
    .venv/bin/python bench/runner_cpu.py -- --jobs 4              # more words for ``run`` after ``--``

Each run is a fresh process that calls ``ccweb_conformance.cli.main`` with ``run --stdio "PYTHON
bench/fast_server.py" --no-rerun`` and, when ``main`` returns, reads ``getrusage(RUSAGE_SELF)``: the
runner's own user and system seconds (its threads included, interpreter start-up and imports included,
the interpreter's exit left out; the system seconds also shown apart: file creation and page faults, which
follow the machine's file system and load more than the runner's code), and ``RUSAGE_CHILDREN``: the
servers it started and waited for. With ``--tree`` the checkouts' sources (``PYTHONPATH`` first, as
``bench_run.py --tree`` does) are run in turn, one run of each per round, so a change of load falls on
each alike. The script prints each run and, per checkout, the medians and this checkout's median own CPU
as a ratio of that checkout's. Figures are printed, never judged; the 1-minute load average is printed
beside each run.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FAST_SERVER = REPO / "bench" / "fast_server.py"
PACKAGE_DIRS = ("conformance", "reference", "spec", "features")
"""The source folders of a checkout, put first on PYTHONPATH by ``--tree``."""
RUN_TIMEOUT_S = 300
CHILD = """
import json, resource, sys
import ccweb_conformance
from ccweb_conformance.cli import main
code = main(sys.argv[2:])
own = resource.getrusage(resource.RUSAGE_SELF)
servers = resource.getrusage(resource.RUSAGE_CHILDREN)
figures = {
    "own": own.ru_utime + own.ru_stime,
    "user": own.ru_utime,
    "servers": servers.ru_utime + servers.ru_stime,
    "code": code,
    "source": ccweb_conformance.__file__,
}
with open(sys.argv[1], "w", encoding="utf-8") as out:
    json.dump(figures, out)
"""
"""The measured process: the run, then its rusage written to the file named first."""


@dataclass(frozen=True)
class Figures:
    """One run: the runner's own CPU seconds (and of them user time), its servers' CPU seconds, its exit code and
    the load."""

    own: float
    user: float
    servers: float
    code: int
    load: float


def run_words(extra: list[str]) -> list[str]:
    """The words given to ``cli.main``: a run against the fast server, no rerun, then ``extra``."""
    server = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAST_SERVER))}"
    return ["run", "--stdio", server, "--no-rerun", *extra]


def environment(tree: Path | None) -> dict[str, str]:
    """This process's environment, with ``tree``'s sources first on ``PYTHONPATH`` when given."""
    env = dict(os.environ)
    if tree is not None:
        paths = [str(tree / name) for name in PACKAGE_DIRS]
        env["PYTHONPATH"] = os.pathsep.join([*paths, *filter(None, [env.get("PYTHONPATH")])])
    return env


def measure(tree: Path | None, words: list[str], workdir: Path) -> Figures:
    """One run in a fresh process; its figures as the process read them at the end of ``main``."""
    out = workdir / "figures.json"
    out.unlink(missing_ok=True)
    load = os.getloadavg()[0]
    subprocess.run(
        [sys.executable, "-c", CHILD, str(out), *words],
        env=environment(tree), cwd=workdir, capture_output=True, timeout=RUN_TIMEOUT_S, check=False,
    )
    figures = json.loads(out.read_text(encoding="utf-8"))
    expected = (tree or REPO).resolve() / "conformance"
    if not Path(figures["source"]).resolve().is_relative_to(expected):
        raise SystemExit(f"runner_cpu: the run imported {figures['source']}, not the sources under {expected}")
    return Figures(
        own=figures["own"], user=figures["user"], servers=figures["servers"], code=figures["code"], load=load
    )


def main() -> int:
    """Alternate the checkouts' runs, print each run and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per checkout (default 5)")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout, alternated")
    parser.add_argument("extra", nargs="*", help="more words for run, after --")
    args = parser.parse_args()
    trees: list[Path | None] = [None, *args.tree]
    labels = ["this checkout", *(str(tree) for tree in args.tree)]
    runs: list[list[Figures]] = [[] for _ in trees]
    with tempfile.TemporaryDirectory(prefix="runner-cpu-") as scratch:
        for round_number in range(args.repeat):
            for index, tree in enumerate(trees):
                figures = measure(tree, run_words(args.extra), Path(scratch))
                runs[index].append(figures)
                print(
                    f"round {round_number + 1} {labels[index]}: own {figures.own:.2f} s (user "
                    f"{figures.user:.2f} s, system {figures.own - figures.user:.2f} s), servers "
                    f"{figures.servers:.2f} s, exit {figures.code}, load {figures.load:.1f}",
                    flush=True,
                )
    here = statistics.median(f.own for f in runs[0])
    for label, figures_list in zip(labels, runs, strict=True):
        own = statistics.median(f.own for f in figures_list)
        user = statistics.median(f.user for f in figures_list)
        system = statistics.median(f.own - f.user for f in figures_list)
        servers = statistics.median(f.servers for f in figures_list)
        print(
            f"{label}: runner's own CPU median {own:.2f} s (this checkout: {here / own:.2f}x it; user median "
            f"{user:.2f} s, system median {system:.2f} s), servers' median {servers:.2f} s, "
            f"over {len(figures_list)} runs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
