"""A run against a stdio server imports no HTTP client: httpx (and the click and rich its own command line
pulls in) is imported by HTTP targets only, when their first channel is made."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from ccweb_conformance.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("httpx", "click", "rich"))]))
"""


def test_a_stdio_run_imports_no_http_client(tmp_path: Path) -> None:
    argv = ["run", "--fuzz", "0", "--no-rerun", "-k", "emoji"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, []]
