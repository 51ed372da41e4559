"""Whole in-process runs with catalogued mutants applied and an expected-failures file: the helpers of the
expected-failures run tests (``test_ci_page_baseline_run.py``, ``test_runner_page_baseline_run.py``,
``test_mistake_charging_run.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from paths import REPO


def documented_expected_failures(page: str = "runner.md", after: str = "--expected-failures FILE") -> str:
    """The expected-failures YAML block of a docs page, as written there."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    block = text.split(after, 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    return textwrap.dedent(block)


def run_mutants(
    tmp_path: Path, mutants: tuple[str, ...], yaml_text: str, *extra: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """A whole ``run --in-process`` in a process of its own with ``mutants`` applied and ``yaml_text`` as
    ``tmp_path/known.yaml``: the finished process and its JSON report."""
    known = tmp_path / "known.yaml"
    known.write_text(yaml_text, encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, 'tests'); from mutants.catalogue import MUTANTS\n"
        f"[MUTANTS[name].apply() for name in {list(mutants)!r}]\n"
        "from ccweb_conformance.cli import main; sys.exit(main(sys.argv[1:]))\n"
    )
    report = tmp_path / "report.json"
    argv = ["run", "--in-process", "--expected-failures", str(known), "--json", str(report), *extra]
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )
    return done, json.loads(report.read_text(encoding="utf-8"))
