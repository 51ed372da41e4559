"""A mutant's console output, for the failure-block tests in both languages."""

from __future__ import annotations

import re
import subprocess
import sys

from paths import REPO

RUN_PY = REPO / "tests" / "mutants" / "run.py"
UUID = re.compile(r"[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def console(mutant: str, *args: str) -> list[str]:
    """The console lines of a failing in-process run against ``mutant`` (UUIDs written ``UUID``)."""
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "mutant", mutant, "run", "--in-process", *args],
        capture_output=True, text=True, encoding="utf-8", timeout=300, check=False, cwd=REPO,
    )  # fmt: skip
    return failing_lines(done)


def failing_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The console lines of a failing run (it must exit 1), UUIDs written ``UUID``."""
    assert done.returncode == 1, done.stderr
    return UUID.sub("UUID", done.stdout).splitlines()


def block(lines: list[str], head: str) -> list[str]:
    """The block that starts at the line ``head``: it and its indented lines."""
    start = lines.index(head)
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("    ")), len(lines))
    return lines[start:end]
