"""A server's environment holds the user's own and what the user gave, never the runner's or pytest's variables
(a server must not be able to tell it is under test, DESIGN 4 Realism)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ccweb_conformance.transport.process import server_environment

FAKE = Path(__file__).parents[1] / "fakes" / "env_recording_server.py"


def test_the_runners_and_pytests_variables_are_dropped_and_what_the_user_gave_wins() -> None:
    environ = {
        "HOME": "/home/u",
        "PYTEST_CURRENT_TEST": "t.py::x (call)",
        "PYTEST_VERSION": "8.4.0",
        "PYTEST_XDIST_WORKER": "gw0",
        "CCWEB_CONFORMANCE_RUN": "123-abc",
        "CCWEB_CONFORMANCE_SERVER": "123-abc-1",
        "CCWEB_CONFORMANCE_CACHE_DIR": "/tmp/cache",
        "CCWEB_SESSION_ID": "mine",
    }
    assert server_environment(environ, {"CCWEB_SESSION_ID": "given", "PYTEST_X": "given too"}) == {
        "HOME": "/home/u",
        "CCWEB_SESSION_ID": "given",
        "PYTEST_X": "given too",
    }


def test_a_whole_run_gives_the_server_none_of_the_runners_variables(tmp_path: Path) -> None:
    record = tmp_path / "environments.jsonl"
    server = f"{sys.executable} {FAKE}"
    run = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--tags", "AC-2", "--fuzz", "0"]
    done = subprocess.run(
        [*run, "--stdio", server, "--env", "USER_GIVEN=1"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env={**os.environ, "RECORD_TO": str(record), "PYTEST_CURRENT_TEST": "x.py::y (call)", "PYTEST_VERSION": "8"},
    )
    assert done.returncode == 0, done.stdout[-2000:]
    seen = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    leaked = sorted({n for names in seen for n in names if n.startswith(("PYTEST_", "CCWEB_CONFORMANCE_"))})
    assert (len(seen) > 1, leaked, all("USER_GIVEN" in names and "RECORD_TO" in names for names in seen)) == (
        True,
        [],
        True,
    )
