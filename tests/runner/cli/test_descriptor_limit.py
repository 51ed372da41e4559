"""A descriptor limit is the runner's environment: exit 2 in one line before anything starts, never the server's 503.

The tester's attack: under ``ulimit -n 64`` over HTTP the bundled reference (which inherits the
limit) fitted its connection cap to the few descriptors it got and answered 503: the run reported
196 failed scenarios, MUST failures charged to a correct server; ``ulimit -n 12`` ended in "found
no collectors". The runner needs DESCRIPTOR_FLOOR for itself and the servers it starts: below it,
and when the hard limit does not let it raise the soft one, the run stops at once.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ccweb_conformance.transport.limits import DESCRIPTOR_FLOOR

CLI = str(Path(sys.executable).parent / "ccweb-conformance")
REFERENCE = str(Path(sys.executable).parent / "ccweb-reference")
OVER_HTTP = [
    "--http-cmd", f"{REFERENCE} --http --port {{port}} --sessions-dir {{sessions_dir}}",
    "--url", "http://127.0.0.1:{port}/mcp",
]  # fmt: skip
BOUND = 120


def _limit(soft: int, hard: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return apply


def _run(tmp_path: Path, soft: int, hard: int, *arguments: str) -> tuple[subprocess.CompletedProcess[str], float]:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    started = time.monotonic()
    done = subprocess.run(
        [CLI, "run", *arguments], capture_output=True, text=True, timeout=BOUND, check=False, cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(temporary)}, preexec_fn=_limit(soft, hard),
    )  # fmt: skip
    assert list(temporary.iterdir()) == []
    return done, time.monotonic() - started


def _line(limit: int) -> str:
    return (
        f"ccweb-conformance: error: the runner's file-descriptor limit is {limit} (ulimit -n), below the "
        f"{DESCRIPTOR_FLOOR} a run needs for the runner and the servers it starts, which inherit it; this is the "
        f"runner's environment, not the implementation: raise the limit (ulimit -n {DESCRIPTOR_FLOOR} or more)\n"
    )


@pytest.mark.parametrize("limit", [64, 12])
def test_ulimit_n_below_the_floor_over_http_is_one_line_and_exit_2_before_any_scenario(
    tmp_path: Path, limit: int
) -> None:
    done, elapsed = _run(tmp_path, limit, limit, *OVER_HTTP, "--json", str(tmp_path / "report.json"))
    print(f"ulimit -n {limit}: exit {done.returncode} after {elapsed:.1f} s")
    assert (done.returncode, done.stderr, done.stdout) == (2, _line(limit), "")
    assert not (tmp_path / "report.json").exists()  # no scenario ran: nothing to report, nothing charged


def test_a_soft_limit_below_the_floor_is_raised_when_the_hard_one_allows(tmp_path: Path) -> None:
    """``ulimit -Sn 64`` with a hard limit of 1024: the runner raises its soft limit and the run passes."""
    done, _ = _run(tmp_path, 64, 1024, *OVER_HTTP, "--tags", "AC-3", "--fuzz", "0")
    assert (done.returncode, done.stderr.splitlines()[-1:]) == (0, ["ccweb-conformance: 5/5 scenarios"]), done.stdout
