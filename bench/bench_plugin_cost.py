"""Benchmark: what installing the kit costs a team's unrelated pytest project.

    .venv/bin/python bench/bench_plugin_cost.py            # about 1-2 minutes (two venvs, 15 runs)
    .venv/bin/python bench/bench_plugin_cost.py --kit DIR  # the kit from another checkout (e.g. an older commit)

A one-test project (``test_one.py``) is run with ``python -m pytest -q -p no:cacheprovider``
in two fresh virtual environments made for the purpose: ``bare`` holds only pytest (the version
the kit's environment got), ``kit`` the kit installed from the checkout as a team would
(``pip install DIR``, its runtime dependencies, no dev extras). The figure is CPU time (user +
sys, from ``/usr/bin/time``), the median of ``--runs`` runs each. A third line runs the kit's
environment with the pytest plugins of the kit's dependencies blocked (``-p no:NAME`` for
pytest-bdd, Hypothesis, anyio): what is left is what the kit itself adds. Prints the
``pytest11`` entry points of the kit's environment and the three medians; the temporary
environments are removed on every path. Every step has a time bound.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 60
TEST = "def test_one():\n    assert 1 + 1 == 2\n"
DEPENDENCY_PLUGINS = ("pytest-bdd", "hypothesispytest", "anyio")
"""The ``pytest11`` entry-point names of the kit's dependencies (theirs, loaded wherever they are installed)."""


def _check(command: list[str], timeout: float, cwd: Path | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_plugin_cost: {' '.join(command[:5])} ... failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _venv(folder: Path, *requirements: str) -> Path:
    """A fresh virtual environment with these requirements; returns its python."""
    _check([sys.executable, "-m", "venv", str(folder)], INSTALL_TIMEOUT_S)
    python = folder / "bin" / "python"
    _check([str(python), "-m", "pip", "install", "--quiet", *requirements], INSTALL_TIMEOUT_S)
    return python


def cpu_seconds(python: Path, project: Path, *extra: str) -> float:
    """User + sys seconds of one ``pytest -q`` run of the project (from /usr/bin/time)."""
    command = ["/usr/bin/time", "-f", "%U %S", str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    if done.returncode != 0 or "1 passed" not in done.stdout:
        raise SystemExit(f"bench_plugin_cost: the one-test project did not pass:\n{done.stdout}\n{done.stderr}")
    user, system = done.stderr.strip().splitlines()[-1].split()
    return float(user) + float(system)


def median_cpu(python: Path, project: Path, runs: int, *extra: str) -> tuple[float, list[float]]:
    """The median and every figure of ``runs`` runs (one unmeasured warm-up run first: byte-code caches).

    A configuration in which the project does not pass gives NaN (reported as such, not measured).
    """
    try:
        cpu_seconds(python, project, *extra)
    except SystemExit as failed:
        print(f"  ({' '.join(extra) or 'no options'}: {str(failed).splitlines()[-3:]})")
        return math.nan, []
    figures = [cpu_seconds(python, project, *extra) for _ in range(runs)]
    return statistics.median(figures), figures


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench_plugin_cost", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--kit", type=Path, default=ROOT, help="the kit's checkout to install (default: this one)")
    parser.add_argument("--runs", type=int, default=5, help="runs per configuration (default 5)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-plugin-cost-") as folder:
        work = Path(folder)
        project = work / "project"
        project.mkdir()
        (project / "test_one.py").write_text(TEST, encoding="utf-8")
        kit = _venv(work / "kit", str(args.kit.resolve()))
        versions = json.loads(_check([str(kit), "-m", "pip", "list", "--format", "json"], 60))
        pytest_version = next(p["version"] for p in versions if p["name"].lower() == "pytest")
        bare = _venv(work / "bare", f"pytest=={pytest_version}")
        probe = "from importlib.metadata import entry_points as e; print(sorted(p.value for p in e(group='pytest11')))"
        plugins = _check([str(kit), "-c", probe], 60, cwd=project).strip()  # not here: a checkout's egg-info
        print(f"pytest {pytest_version}; the pytest11 plugins of the kit's venv: {plugins}")
        blocked = [word for name in DEPENDENCY_PLUGINS for word in ("-p", f"no:{name}")]
        rows = [
            ("bare venv (pytest only)", *median_cpu(bare, project, args.runs)),
            ("the kit's venv", *median_cpu(kit, project, args.runs)),
            ("the kit's venv, its dependencies' plugins blocked", *median_cpu(kit, project, args.runs, *blocked)),
        ]
    base = rows[0][1]
    print(f"CPU seconds (user+sys) of `pytest -q` on a one-test project, median of {args.runs}:")
    for label, median, figures in rows:
        runs = " ".join(f"{f:.2f}" for f in figures)
        if math.isnan(median):
            print(f"  {label:<52} the one-test project did not pass")
        else:
            print(f"  {label:<52} {median:5.2f} s  {median / base - 1:+7.1%}   ({runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
