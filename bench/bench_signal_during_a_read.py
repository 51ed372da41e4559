"""Benchmark: seconds from a signal to the run's end, when the signal comes while an HTTP read waits.

    .venv/bin/python bench/bench_signal_during_a_read.py                     # 5 runs of each case, this checkout
    .venv/bin/python bench/bench_signal_during_a_read.py --tree OLD          # and OLD's sources, alternated
    .venv/bin/python bench/bench_signal_during_a_read.py --repeat 3 silent   # some cases only

Each run is a whole ``ccweb-conformance run --url URL --sessions-dir DIR --timeout 20`` against the gate fake
(``tests/runner/fakes/gate_server.py``), started beforehand as a server the run did not start, through the gate's
``run_case`` (``tests/runner/gate_cases.py``): the signal is sent once the fake says a read is in flight. The cases:
``silent`` (every tools/call read and never answered; SIGTERM), ``trickle`` (the third AC-8 scenario's call answered
with an SSE stream that sends a byte every 0.1 s and never a line; SIGTERM), ``slow-trickle`` (the same, a byte
every 60 s), ``answering`` (a server that answers;
SIGINT once a scenario passed). With ``--tree`` the checkouts' sources (``PYTHONPATH`` first, as ``runner_cpu.py
--tree`` does) are run in turn, one run of each per round. Printed: each run's seconds from the signal to the exit,
its exit code and what it left, the 1-minute load average, and each case's median per checkout. Figures are printed,
never judged.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "runner"))

from gate_cases import Case, run_case  # noqa: E402 (tests/runner is put on the path first)

PACKAGE_DIRS = ("conformance", "reference", "spec", "features")
"""The source folders of a checkout, put first on PYTHONPATH by ``--tree``."""
ARGS = ["--timeout", "20"]
"""Far past a signal's figure: a run that waits for its read to time out shows as about 20 s."""
CASES = {
    "silent": Case(ARGS, 143, "", signal_after=(signal.SIGTERM, "silent-"), server=["hang"], bound=120.0),
    "trickle": Case(ARGS, 143, "", signal_after=(signal.SIGTERM, "trickling-"), server=["trickle=6"], bound=120.0),
    "slow-trickle": Case(
        ARGS,
        143,
        "",
        signal_after=(signal.SIGTERM, "trickling-"),
        server=["trickle=6", "trickle-every=60"],
        bound=120.0,
    ),
    "answering": Case(ARGS, 130, "", signal_after=(signal.SIGINT, "PASSED "), server=[], bound=120.0),
}


def with_tree(case: Case, tree: Path | None) -> Case:
    """``case``, its runner (and its fake) importing ``tree``'s sources first when given."""
    if tree is None:
        return case
    paths = [str(tree.resolve() / name) for name in PACKAGE_DIRS]
    pythonpath = os.pathsep.join([*paths, *filter(None, [os.environ.get("PYTHONPATH")])])
    return dataclasses.replace(case, env={**case.env, "PYTHONPATH": pythonpath})


def main() -> int:
    """Alternate the checkouts' runs of each case, print each run and the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each case per checkout (default 5)")
    parser.add_argument("--tree", type=Path, action="append", default=[], help="another checkout, alternated")
    parser.add_argument("cases", nargs="*", help=f"the cases (default: all): {', '.join(CASES)}")
    args = parser.parse_args()
    unknown = sorted(set(args.cases) - set(CASES))
    if unknown:
        parser.error(f"unknown cases: {', '.join(unknown)}")
    trees: list[Path | None] = [None, *args.tree]
    labels = ["this checkout", *(str(tree) for tree in args.tree)]
    names = args.cases or list(CASES)
    seconds: dict[tuple[str, int], list[float]] = {(name, index): [] for name in names for index in range(len(trees))}
    with tempfile.TemporaryDirectory(prefix="bench-signal-read-") as scratch:
        for round_number in range(args.repeat):
            for name in names:
                for index, tree in enumerate(trees):
                    load = os.getloadavg()[0]
                    folder = Path(scratch) / f"{round_number}-{index}"
                    outcome = run_case(name, with_tree(CASES[name], tree), folder)
                    assert outcome.after_signal_s is not None
                    seconds[name, index].append(outcome.after_signal_s)
                    print(
                        f"round {round_number + 1} {name} {labels[index]}: {outcome.after_signal_s:.2f} s from the "
                        f"signal to the exit, exit {outcome.code}, left {len(outcome.left_processes)} processes and "
                        f"{len(outcome.left_files)} files, load {load:.1f}",
                        flush=True,
                    )
    for name in names:
        for index, label in enumerate(labels):
            figures = seconds[name, index]
            print(f"{name} {label}: median {statistics.median(figures):.2f} s over {len(figures)} runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
