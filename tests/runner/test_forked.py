"""The helper that runs the tests' forked batches (``runner/forked.py``): a time-out stops the forked children too,
and each child's exit code and streams are its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import TESTS
from runner.forked import run_as_group

FORKS_AND_WAITS = """
import os, sys, time
os.fork()
with open(sys.argv[1], "a") as pids:
    pids.write(f"{os.getpid()}\\n")
time.sleep(60)
with open(sys.argv[1] + ".slept", "a") as slept:
    slept.write(f"{os.getpid()}\\n")
"""
"""A process whose forked child would outlive it: each writes its pid to the file named, then sleeps, then (only if
nothing stopped it) writes its pid to the file named with ``.slept`` added."""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, killed and not yet reaped by whoever adopted it, is not: read in
    ``/proc`` where there is one)."""
    if not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_a_time_out_stops_the_forked_children_too(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    with pytest.raises(subprocess.TimeoutExpired):
        run_as_group([sys.executable, "-c", FORKS_AND_WAITS, str(pids)], tmp_path, 3)
    written = [int(pid) for pid in pids.read_text(encoding="utf-8").split()]
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in written) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(written) == 2
    assert [pid for pid in written if _running(pid)] == []
    assert not pids.with_name("pids.slept").exists()  # stopped: a stray child holds the pipe until it slept out


WRITES_AND_EXITS = """
import json, os, sys
from runner.forked import each_in_a_child

def work(name):
    os.write(1, f"out {name}\\n".encode())
    os.write(2, f"err {name}\\n".encode())
    return {"a": 0, "b": 1}[name]

print(json.dumps(each_in_a_child(["a", "b", "c"], work, __import__("pathlib").Path(sys.argv[1]))))
"""
"""A batch of three children: ``a`` exits 0, ``b`` 1, ``c`` raises; each writes a line to each stream."""


def test_each_child_has_its_own_exit_code_and_streams(tmp_path: Path) -> None:
    """Forked from a process of its own, as the batches are (not from the test worker and its threads)."""
    done = subprocess.run(
        [sys.executable, "-c", WRITES_AND_EXITS, str(tmp_path)],
        cwd=TESTS, capture_output=True, text=True, timeout=60, check=False,
    )
    assert (done.returncode, json.loads(done.stdout)) == (0, {"a": 0, "b": 1, "c": 3}), done.stderr
    assert [(tmp_path / f"{n}.out").read_text(encoding="utf-8") for n in "abc"] == ["out a\n", "out b\n", "out c\n"]
    assert [(tmp_path / f"{n}.err").read_text(encoding="utf-8") for n in "abc"] == [
        "err a\n",
        "err b\n",
        "err c\nforked: c crashed: KeyError('c')\n",
    ]
