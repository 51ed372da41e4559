"""What the runner's commands import (D-17: ``run``, ``run --co``, ``profile`` and ``export`` import neither pytest nor
pytest-bdd): commands run one after another in one fresh interpreter, each followed by what it imported of pytest.

A module that one command imports is already loaded for the next, so each command's list holds the pytest modules
it imported first: the first command that imports pytest shows it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from ccweb_conformance.cli import main
def pytest_modules():
    return {m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest", "pytest_bdd")}
with open(sys.argv[1], "a", encoding="utf-8") as results:
    for argv in json.loads(sys.argv[2]):
        before = pytest_modules()
        code = main(argv)
        results.write(json.dumps([code, sorted(pytest_modules() - before)]) + "\\n")
        results.flush()
"""


def imported(folder: Path, *commands: list[str]) -> list[tuple[int, list[str]]]:
    """Per command, in order: its exit code and the pytest modules it imported (run in ``folder``)."""
    results = folder / "imported.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(results), json.dumps(commands)],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = results.read_text(encoding="utf-8").splitlines()
    results.unlink()
    return [(code, modules) for code, modules in map(json.loads, lines)]
