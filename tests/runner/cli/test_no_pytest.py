"""``run``, ``run --co``, ``export`` and ``profile`` run on the runner's own engine: pytest and pytest-bdd are never
imported (D-17). Each command runs in a fresh interpreter, which then lists what it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from ccweb_conformance.cli import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest", "pytest_bdd"))]))
"""


def imported(tmp_path: Path, *argv: str) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    return code, modules


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--in-process", "--fuzz", "0", "-k", "emoji"],
        ["run", "--co"],
        ["profile", "--sizes", "1", "--repeats", "1", "--settle", "0", "--no-reference"],
        ["export", "--output", "cases.json"],
    ],
    ids=["run", "collect-only", "profile", "export"],
)
def test_the_command_imports_no_pytest(tmp_path: Path, argv: list[str]) -> None:
    assert imported(tmp_path, *argv) == (0, [])
