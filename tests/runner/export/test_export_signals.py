"""An interrupted ``export`` writes nothing and leaves nothing: a partial case file is never a result.

Before it ran on the shared session, SIGINT ended the recording early and the scenarios
recorded so far were written as the export, with exit 0; SIGTERM and SIGHUP killed it
where it stood, its temporary folders left behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BOUND = 120.0
"""Seconds the export may take to start or to stop (a guard, not a speed check)."""


@pytest.mark.parametrize(
    ("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["INT", "TERM", "HUP"]
)
def test_a_signal_mid_export_writes_nothing_and_leaves_nothing(tmp_path: Path, sig: int, code: int) -> None:
    temporary, output = tmp_path / "tmp", tmp_path / "cases.json"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    process = subprocess.Popen(
        [sys.executable, "-m", "ccweb_conformance.cli", "export", "--output", str(output)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # the signal's default disposition, whatever this test run inherited (a background job ignores SIGINT)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # noqa: PLW1509 (no threads started here)
    )
    assert process.stderr is not None
    try:
        deadline = time.monotonic() + BOUND
        first = process.stderr.readline()  # the first progress line: the recording is under way
        assert first.startswith("ccweb-conformance: ") and first.endswith(" scenarios\n"), first
        assert time.monotonic() < deadline
        process.send_signal(sig)
        rest = process.stderr.read()
        process.wait(BOUND)
    finally:
        process.kill()
        process.wait()
        process.stderr.close()
    name = signal.Signals(sig).name
    assert process.returncode == code
    assert rest.splitlines()[-1] == f"ccweb-conformance: export interrupted by {name}; nothing written"
    assert "Traceback" not in rest
    assert (output.exists(), sorted(p.name for p in temporary.iterdir())) == (False, [])
