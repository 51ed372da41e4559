"""Benchmark: the GitHub Action's install step with a cold and with a warm pip cache.

    .venv/bin/python bench/bench_action_install.py          # about 1-3 minutes

Runs the "Install the contract kit" step of ``action.yml`` as the runner would (its own
virtual environment under a fresh RUNNER_TEMP, the kit from this checkout), first with an
empty ``PIP_CACHE_DIR`` (every job before the action cached pip: the "before" figure), then
again with the cache the first run filled (a job after a pip cache hit: the "after"
figure), and last the unpacking of the installed venv, as a venv cache hit does for a
released kit (the install step is then skipped).
Prints both times in seconds. The package index here is local, so downloads cost less than
on a hosted runner; the ratio is the figure to read.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def install_once(runner_temp: Path, cache: Path) -> float:
    """Seconds the install step takes with this pip cache folder."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    step = next(s for s in action["runs"]["steps"] if s["name"].startswith("Install"))
    env = {
        **os.environ,
        "KIT_SOURCE": "",
        "KIT_VERSION": "",
        "KIT_PYTHON": sys.executable,
        "ACTION_PATH": str(ROOT),
        "PIP_CACHE_DIR": str(cache),
        "RUNNER_TEMP": str(runner_temp),
    }
    started = time.perf_counter()
    subprocess.run(["bash", "-c", step["run"]], env=env, check=True, timeout=900, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-action-") as folder:
        cache = Path(folder) / "pip-cache"
        cold = install_once(Path(folder) / "job1", cache)
        warm = install_once(Path(folder) / "job2", cache)
        restore = restore_venv(Path(folder) / "job2" / "ccweb-kit", Path(folder) / "job3")
    print(f"install step, empty pip cache (before):        {cold:6.1f} s")
    print(f"install step, warm pip cache  (after):         {warm:6.1f} s")
    print(f"venv cache hit: unpack the kit's venv instead: {restore:6.1f} s")
    print(f"saved per job: {cold - warm:.1f} s with the pip cache, {cold - restore:.1f} s on a venv cache hit")


def restore_venv(venv: Path, job: Path) -> float:
    """Seconds to pack (untimed) and unpack the installed venv, as a cache hit does (tar + gzip)."""
    job.mkdir()
    archive = job / "venv.tgz"
    subprocess.run(["tar", "czf", str(archive), "-C", str(venv.parent), venv.name], check=True, timeout=600)
    started = time.perf_counter()
    subprocess.run(["tar", "xzf", str(archive), "-C", str(job)], check=True, timeout=600)
    subprocess.run(
        [str(job / "ccweb-kit" / "bin" / "python"), "-c", "import ccweb_conformance"], check=True, timeout=120
    )
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
