"""scripts/render_reports.py: the viewers are optional, a missing one is named and skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "render_reports.py"


def render(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The script with a PATH that holds no viewer (node and chromium may be there; nothing names them)."""
    env = {"PATH": "/nonexistent"}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_missing_viewers_are_named_with_how_to_install_them_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "junit.xml").write_text("<testsuites/>", encoding="utf-8")
    (tmp_path / "cucumber.json").write_text("[]", encoding="utf-8")
    done = render(str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "junit2html: not installed (pip install junit2html, in a throwaway venv): skipped",
        "xunit-viewer: not found (npm install xunit-viewer in a folder, then --node-modules FOLDER): skipped",
        "multiple-cucumber-html-reporter: not found (npm install it beside xunit-viewer, and node): skipped",
    ]


def test_without_reports_it_says_what_to_give_and_exits_2(tmp_path: Path) -> None:
    done = render(str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2
    out = tmp_path / "out"
    assert done.stdout == (
        f"render_reports: no reports to render ({out / 'junit.xml'}, {out / 'cucumber.json'}): "
        "give --junit/--cucumber or --mutant\n"
    )


def test_a_markdown_report_without_markdown_py_is_named_and_skipped(tmp_path: Path) -> None:
    (tmp_path / "junit.xml").write_text("<testsuites/>", encoding="utf-8")
    (tmp_path / "cucumber.json").write_text("[]", encoding="utf-8")
    (tmp_path / "report.md").write_text("## run\n", encoding="utf-8")
    done = render(str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0
    skipped = "markdown_py: not installed (pip install markdown, in a throwaway venv): skipped"
    assert done.stdout.splitlines()[-1] == skipped
