"""Every command the documents show runs as written, placeholders replaced (issue 23).

The fenced ``sh`` blocks of the READMEs and ``docs/`` (not the generated living specs) and
the example lines of ``ccweb-conformance --help`` and ``run --help`` run here, each block's
commands in order in one scratch folder, against the bundled reference; a line ending in the
skip marker is not run (it says why). What replaces each placeholder, and the config that
bounds each run's time, are data: ``readme_commands.yaml``. The TOML config snippets run in
both file forms.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from paths import REPO
from served import reference_over_http

DATA = yaml.safe_load((Path(__file__).parent / "readme_commands.yaml").read_text(encoding="utf-8"))
BIN = Path(sys.executable).parent
COMMAND_TIMEOUT_S = 240
FENCE = re.compile(r"^ *```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    """The commands of one fenced block (or one help text's examples), with where they come from."""

    where: str
    commands: tuple[str, ...]


def _logical_lines(lines: list[str]) -> Iterator[str]:
    pending = ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield (pending + line.strip()).strip()
        pending = ""


def commands_of(lines: list[str]) -> tuple[str, ...]:
    """The runnable commands among ``lines``: no blank or comment line, no ``cd``, no skip-marked line."""
    kept = []
    for line in _logical_lines(lines):
        if not line or line.startswith("#") or line.startswith("cd ") or DATA["skip_marker"] in line:
            continue
        kept.append(re.sub(r"\s+#\s.*$", "", line))  # a trailing comment
    return tuple(kept)


def sh_blocks(document: str) -> list[Block]:
    """The ``sh`` blocks of ``document`` (a path relative to the checkout)."""
    blocks, language, body, start = [], None, [], 0
    for number, line in enumerate((REPO / document).read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence and language is None:
            language, body, start = fence.group(1), [], number
        elif fence:
            if language in ("sh", "bash", "shell") and commands_of(body):
                blocks.append(Block(f"{document}:{start}", commands_of(body)))
            language = None
        elif language is not None:
            body.append(line)
    return blocks


def help_examples(*command: str) -> Block:
    """The example lines of ``ccweb-conformance [command] --help`` (a trailing parenthesis is prose)."""
    text = subprocess.run(
        [str(BIN / "ccweb-conformance"), *command, "--help"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    section = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    lines = [re.sub(r"\s{2,}\(.*\)$", "", line) for line in section]
    return Block(f"ccweb-conformance {' '.join(command)} --help".replace("  ", " "), commands_of(lines))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """The README's own HTTP line, `ccweb-reference --sessions-dir DIR --http --port 8765`, DIR and port replaced."""
    sessions = tmp_path_factory.mktemp("server-sessions")
    stderr = tmp_path_factory.mktemp("server-log") / "stderr.txt"
    with reference_over_http(sessions, stderr=stderr, command=[str(BIN / "ccweb-reference")]) as served:
        yield {"@SERVER_PORT@": str(served.port), "@SERVER_SESSIONS@": str(sessions)}


def substituted(command: str, values: dict[str, str]) -> str:
    """``command`` with every placeholder of the data file replaced, then the @NAME@ values filled in."""
    for old, new in DATA["substitutions"]:
        command = command.replace(old, new)
    for name, value in values.items():
        command = command.replace(name, value)
    return command


def scratch(folder: Path) -> dict[str, str]:
    """Fill the scratch folder; the environment the commands run in (no GITHUB_STEP_SUMMARY: outside CI)."""
    (folder / "ccweb-conformance.toml").write_text(DATA["scratch_config"] + "\n", encoding="utf-8")
    (folder / "docs").mkdir()
    for name, text in DATA["scratch_files"].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CCWEB_", "CC_WEB_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def run_block(block: Block, folder: Path, values: dict[str, str]) -> list[str]:
    """Run the block's commands in order in ``folder``; the failures, one line each (empty: all passed)."""
    env = scratch(folder)
    values = {"@ROOT@": str(REPO), "@PYTHON@": sys.executable, "@SESSIONS@": str(folder / "sessions"), **values}
    (folder / "sessions").mkdir()
    failures = []
    for command in block.commands:
        line = substituted(command, values)
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {line}"],
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            failures.append(f"{block.where}: exit {done.returncode}: {command}\n  ran: {line}\n  {done.stderr[-1500:]}")
    return failures


BLOCKS = [b for document in DATA["documents"] for b in sh_blocks(document)]


def runs_covering(blocks: list[Block]) -> list[Block]:
    """The blocks to run: a block whose commands begin another block's (the same lines, in order, from the
    same empty scratch folder) is run as part of that one, its place named in the run's ``where``.

    The translations and the Chinese CASES document repeat the English blocks line for line; running each
    such sequence once proves every place that shows it.
    """
    kept: list[Block] = []
    for block in sorted(blocks, key=lambda b: -len(b.commands)):
        cover = next((i for i, k in enumerate(kept) if k.commands[: len(block.commands)] == block.commands), None)
        if cover is None:
            kept.append(block)
        else:
            kept[cover] = Block(f"{kept[cover].where} + {block.where}", kept[cover].commands)
    order = {b.where: i for i, b in enumerate(blocks)}
    return sorted(kept, key=lambda b: order[b.where.split(" + ")[0]])


RUNS = runs_covering(BLOCKS)


def test_the_documents_have_the_commands_the_issue_names() -> None:
    everything = [c for b in BLOCKS for c in b.commands]
    assert 'pip install "git+https://github.com/OWNER/REPO@TAG"' in everything
    assert any("${GITHUB_STEP_SUMMARY:-" in c for c in everything)  # robust outside GitHub
    assert any("--stdio" in c and "--sessions-dir" in c and "--env" in c for c in everything)
    assert "ccweb-conformance run --json - | jq .counts" in help_examples("run").commands


def test_every_block_is_run_once() -> None:
    assert sorted(w for b in RUNS for w in b.where.split(" + ")) == sorted(b.where for b in BLOCKS)
    shown = {b.where: b.commands for b in BLOCKS}
    for run in RUNS:
        for where in run.where.split(" + "):
            assert run.commands[: len(shown[where])] == shown[where]
    assert len(RUNS) < len(BLOCKS)  # the Chinese documents repeat English blocks


@pytest.mark.parametrize("block", RUNS, ids=[b.where for b in RUNS])
def test_document_block_runs(block: Block, tmp_path: Path, server: dict[str, str]) -> None:
    assert run_block(block, tmp_path, server) == []


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


def toml_snippets(document: str) -> list[str]:
    """The ``toml`` blocks of ``document``."""
    text = (REPO / document).read_text(encoding="utf-8")
    return [textwrap_dedent(b) for b in re.findall(r"^ *```toml\n(.*?)^ *```", text, flags=re.S | re.M)]


def textwrap_dedent(text: str) -> str:
    """The snippet without the list item's indentation."""
    import textwrap  # noqa: PLC0415

    return textwrap.dedent(text)


SNIPPETS = [(d, s) for d in ("README.md", "README.zh-CN.md") for s in toml_snippets(d)]


def test_each_readme_shows_both_config_forms() -> None:
    for document in ("README.md", "README.zh-CN.md"):
        forms = {s.startswith("[tool.ccweb-conformance]") for d, s in SNIPPETS if d == document}
        assert forms == {True, False}, document


@pytest.mark.parametrize("snippet", [s for _, s in SNIPPETS], ids=[f"{d}#{i}" for i, (d, _) in enumerate(SNIPPETS)])
def test_config_snippet_runs_in_its_file(snippet: str, tmp_path: Path) -> None:
    env = scratch(tmp_path)
    name = "pyproject.toml" if snippet.startswith("[tool.") else "ccweb-conformance.toml"
    (tmp_path / "ccweb-conformance.toml").unlink()
    (tmp_path / name).write_text(substituted(snippet, {}), encoding="utf-8")
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
