"""Hypothesis's cache never outlives the run: with no usable home it lives in a folder the fuzz phase owns.

The tester's attack: whenever HOME was unusable, ``ccweb-conformance-hypothesis-<uid>`` was left in
TMPDIR after every run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).parent / "ccweb-conformance")


@pytest.mark.parametrize("home", ["a-file", "a-file/inside"])
def test_with_an_unusable_home_the_hypothesis_folder_is_removed(tmp_path: Path, home: str) -> None:
    temporary, work = tmp_path / "tmp", tmp_path / "work"
    temporary.mkdir()
    work.mkdir()
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")  # HOME/.cache cannot be made under it
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "HYPOTHESIS_STORAGE_DIRECTORY")}
    env |= {"HOME": str(tmp_path / home), "TMPDIR": str(temporary)}
    done = subprocess.run(
        [CLI, "run", "--in-process", "--tags", "AC-3", "--fuzz", "20", "--seed", "1"],
        capture_output=True, text=True, timeout=120, check=False, cwd=work, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "1 run check (fuzz)" in done.stdout  # the fuzz phase ran
    left = (sorted(p.name for p in temporary.iterdir()), sorted(p.name for p in work.iterdir()))
    assert left == ([], [])  # nor a .hypothesis in the working directory
