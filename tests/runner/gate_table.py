"""Prints the done-when table of issue 11: one row per case of ``gate_cases.CASES``.

    .venv/bin/python tests/runner/gate_table.py [NAME...]     # every case by default, 3 at a time

Columns: exit code, wall time, the first line of the message, processes and files left
(must be 0 / 0), and the runner's peak memory (VmHWM).
"""

from __future__ import annotations

import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gate_cases import CASES, Outcome, run_case


def row(name: str, outcome: Outcome) -> str:
    first = outcome.first_line().replace("|", "\\|")
    if len(first) > 90:
        first = first[:87] + "..."
    left = f"{len(outcome.left_processes)} / {len(outcome.left_files)}"
    return f"| {name} | {outcome.code} | {outcome.wall_s:.1f} s | {first} | {left} | {outcome.peak_mb:.0f} MB |"


def main(names: list[str]) -> None:
    print("| case | exit | wall | first line of the message | processes / files left | runner peak |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="ccweb-gate-table-") as folder, ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(run_case, name, CASES[name], Path(folder)) for name in names}
        for name, future in futures.items():
            print(row(name, future.result()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or list(CASES))
