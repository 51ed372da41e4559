"""The Node example's dependencies, installed once even when several test files (xdist workers) need them."""

from __future__ import annotations

import fcntl
import shutil
import subprocess

import pytest
from paths import REPO

EXAMPLE = REPO / "examples" / "node-server"
NPM_CI_TIMEOUT_S = 600


def require(program: str) -> str:
    """The path of ``program``, or a failure (never a skip): the Node example needs Node 20+ and npm."""
    path = shutil.which(program)
    if path is None:
        pytest.fail(f"{program} is not on PATH: the Node example needs Node 20 or later and npm", pytrace=False)
    return path


def ensure_node_modules() -> None:
    """``npm ci`` in the example when node_modules is missing, under a lock (two workers never race)."""
    with open(EXAMPLE / ".npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (EXAMPLE / "node_modules").is_dir():
            return
        done = subprocess.run(
            [require("npm"), "ci", "--no-audit", "--no-fund"],
            cwd=EXAMPLE, capture_output=True, text=True, timeout=NPM_CI_TIMEOUT_S, check=False,
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {EXAMPLE}:\n{done.stdout}\n{done.stderr}", pytrace=False)
