"""The Node servers' dependencies (the example's, bench/node-sdk-v2's), installed once even when several test
files (xdist workers) need them."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

EXAMPLE = REPO / "examples" / "node-server"
NODE_SDK_V2 = REPO / "bench" / "node-sdk-v2"
"""The benchmark's server on the TypeScript SDK v2; it imports the example's tool logic (and its ajv)."""
NPM_CI_TIMEOUT_S = 600


def require(program: str) -> str:
    """The path of ``program``, or a failure (never a skip): the Node example needs Node 20+ and npm."""
    path = shutil.which(program)
    if path is None:
        pytest.fail(f"{program} is not on PATH: the Node example needs Node 20 or later and npm", pytrace=False)
    return path


def ensure_node_modules(folder: Path = EXAMPLE) -> None:
    """``npm ci`` in ``folder`` when node_modules is missing, under a lock (two workers never race)."""
    with open(folder / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "node_modules").is_dir():
            return
        done = subprocess.run(
            [require("npm"), "ci", "--no-audit", "--no-fund"],
            cwd=folder, capture_output=True, text=True, timeout=NPM_CI_TIMEOUT_S, check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {folder}:\n{done.stdout}\n{done.stderr}", pytrace=False)


def whole_run(server: str, report_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    """``ccweb-conformance run --stdio SERVER`` (a whole default run, bounded to 10 minutes) must exit 0: the
    finished process (its console) and its JSON report."""
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", server, *options]
    completed = subprocess.run(
        [*command, "--json", str(report_path)], capture_output=True, text=True, timeout=600, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report: dict = json.loads(report_path.read_text(encoding="utf-8"))
    return completed, report
