"""The README test's second half (``test_readme_commands.py`` says what it proves): the example lines of
``ccweb-conformance --help`` and ``run --help`` run as written, and the TOML config snippets run in both
file forms."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from readme_commands import BIN, COMMAND_TIMEOUT_S, SNIPPETS, Block, help_examples, run_block, scratch, substituted

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("command", [(), ("run",)], ids=["main", "run"])
def test_help_examples_run(command: tuple[str, ...], tmp_path: Path, server: dict[str, str]) -> None:
    if shutil.which("jq") is None and command == ("run",):
        pytest.fail("jq is not installed (apt-get install -y jq): the run --help examples pipe into it", pytrace=False)
    assert run_block(help_examples(*command), tmp_path, server) == []


def test_a_broken_example_fails(tmp_path: Path, server: dict[str, str]) -> None:
    broken = Block("broken", ('ccweb-conformance run --stdio "node lib/mcp-server.js" --no-such-option',))
    failures = run_block(broken, tmp_path, server)
    assert [f.splitlines()[0] for f in failures] == [
        'broken: exit 2: ccweb-conformance run --stdio "node lib/mcp-server.js" --no-such-option'
    ]


def test_the_config_documents_show_both_forms() -> None:
    for document in ("docs/runner.md", "README.zh-CN.md"):
        forms = {s.startswith("[tool.ccweb-conformance]") for d, s in SNIPPETS if d == document}
        assert forms == {True, False}, document


@pytest.mark.parametrize("snippet", [s for _, s in SNIPPETS], ids=[f"{d}#{i}" for i, (d, _) in enumerate(SNIPPETS)])
def test_config_snippet_runs_in_its_file(snippet: str, tmp_path: Path) -> None:
    env = scratch(tmp_path)
    name = "pyproject.toml" if snippet.startswith("[tool.") else "ccweb-conformance.toml"
    (tmp_path / "ccweb-conformance.toml").unlink()
    (tmp_path / name).write_text(substituted(snippet, {"@PYTHON@": sys.executable}), encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "ccweb-conformance"), "run", "--tags", "UNI-3", "--json", "report.json"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["target"].startswith("stdio")
    if "junitxml" in snippet:
        assert (tmp_path / "ccweb-conformance-junit.xml").is_file()


def test_the_pyproject_form_in_the_toml_file_is_refused_as_the_readme_says(tmp_path: Path) -> None:
    env = scratch(tmp_path)
    (tmp_path / "ccweb-conformance.toml").write_text('[tool.ccweb-conformance]\nstdio = "x"\n', encoding="utf-8")
    done = subprocess.run(
        [str(BIN / "ccweb-conformance"), "run"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown key 'tool'" in done.stderr
