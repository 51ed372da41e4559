"""A process limit (RLIMIT_NPROC) is the runner's environment: one line, exit 2, its servers stopped, its folder gone.

The tester's attack: ``ulimit -u 60`` aborted the runner (exit 134, "Fatal Python error" in the
file watcher's thread) and left its temporary folder and servers for seconds; ``ulimit -u 25`` gave
exit 1 ("can't start new thread"), the lost servers blamed on the implementation. The limit counts
every process and thread of a user, and root's are never limited: as root the run is started as a
user no one else uses (tests/other_user.py), never with CAP_SYS_RESOURCE, so the limit holds.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from other_user import OTHER_UID, as_other_user

from ccweb_conformance.transport.limits import tasks_of_user

pytestmark = pytest.mark.slow

CLI = str(Path(sys.executable).parent / "ccweb-conformance")
BOUND = 180
ENDING = "this is the runner's environment, not the implementation: raise the process limit (ulimit -u) or free memory"


def _limited(nproc: int) -> tuple[list[str], Callable[[], None] | None, int]:
    """The command prefix, the preexec function and the uid of a run limited to ``nproc`` processes and threads."""
    if os.geteuid() != 0:  # this user's processes count already: leave them ``nproc`` more
        headroom = tasks_of_user(os.getuid()) + nproc

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NPROC, (headroom, headroom))

        return [], limit, os.getuid()
    if shutil.which("prlimit") is None:
        pytest.skip("running as root without prlimit: RLIMIT_NPROC is not enforced for root")
    return ["prlimit", f"--nproc={nproc}", *as_other_user()], None, OTHER_UID


def _processes_naming(folder: Path) -> list[str]:
    """Command lines of running processes that name ``folder`` (the run's servers carry its sessions path)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if str(folder) in line:
            found.append(line)
    return found


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="counts processes in /proc (Linux)")
@pytest.mark.parametrize("nproc", [60, 25])
def test_a_process_limit_is_one_line_and_exit_2_with_nothing_left(nproc: int) -> None:
    prefix, preexec, uid = _limited(nproc)
    folder = Path(tempfile.mkdtemp(prefix="ccweb-test-nproc-"))  # not pytest's tmp_path: the limited user's too
    folder.chmod(0o777)
    temporary = folder / "tmp"
    temporary.mkdir(mode=0o777)
    temporary.chmod(0o777)
    env = {**os.environ, "TMPDIR": str(temporary), "HOME": str(folder)}
    # The default run; not the permission scenario, which the right to read every file would fail.
    command = [*prefix, CLI, "run", "-k", "not permission", "--json", str(folder / "report.json")]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=BOUND, check=False, cwd=folder, env=env,
            preexec_fn=preexec,  # the limit of the non-root case
        )  # fmt: skip
        elapsed = time.monotonic() - started
        left_files = sorted(p.name for p in temporary.iterdir())
        left_processes = _processes_naming(temporary)
        left_tasks = tasks_of_user(uid) if uid == OTHER_UID else 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"RLIMIT_NPROC {nproc}: exit {done.returncode} after {elapsed:.1f} s")
    progress = [line for line in done.stderr.splitlines() if re.match(r"ccweb-conformance: \d+/\d+ scenarios", line)]
    started = [line for line in done.stderr.splitlines() if line.startswith("ccweb-conformance: testing ")]
    lines = [line for line in done.stderr.splitlines() if line not in progress and line not in started]
    assert len(started) == 1, started  # what starts, said at once; then the fault in one line
    assert done.returncode == 2, done.stderr[-3000:]
    assert [line for line in progress if "failed" in line] == []  # no scenario charged to the implementation
    assert len(lines) == 1, lines
    assert lines[0].startswith("ccweb-conformance: error: the runner "), lines
    assert lines[0].endswith(ENDING), lines
    assert (left_files, left_processes, left_tasks) == ([], [], 0)
