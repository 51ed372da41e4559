"""The README test's machinery: the documents' ``sh`` blocks, the help texts' examples, the TOML
snippets, and how each runs in a scratch folder against the bundled reference.

Shared by ``packaging/test_readme_commands.py`` (the documents' blocks) and
``packaging/test_readme_help_and_config.py`` (the help examples and the config snippets): two
files, so that ``--dist loadfile`` runs the two on both workers at once.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml
from paths import REPO
from served import reference_over_http

DATA = yaml.safe_load((Path(__file__).parent / "packaging" / "readme_commands.yaml").read_text(encoding="utf-8"))
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
    """The HTTP line of docs/reference-server.md, `ccweb-reference --sessions-dir DIR --http --port 8765`."""
    sessions = tmp_path_factory.mktemp("server-sessions")
    stderr = tmp_path_factory.mktemp("server-log") / "stderr.txt"
    with reference_over_http(sessions, stderr=stderr, command=[str(BIN / "ccweb-reference")]) as served:
        yield {"@SERVER_PORT@": str(served.port), "@SERVER_SESSIONS@": str(sessions)}


@cache
def head_commit() -> str:
    """The checkout's HEAD commit: the documents install the kit from git at a full commit SHA."""
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30,
                          check=True)
    return done.stdout.strip()


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
    values = {"@ROOT@": str(REPO), "@COMMIT@": head_commit(), "@PYTHON@": sys.executable,
              "@SESSIONS@": str(folder / "sessions"), **values}
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
GUIDES = ("conformance/ccweb_conformance/harness/", "examples/node-server/")
"""The guides beside the code (the exported cases' and the Node example's): their blocks run in
``test_guide_commands.py``, the READMEs' and ``docs/``'s in ``test_readme_commands.py`` (two files: two workers)."""


def of_the_guides(block: Block) -> bool:
    """True for a run of a block of the guides beside the code (:data:`GUIDES`)."""
    return block.where.startswith(GUIDES)


def toml_snippets(document: str) -> list[str]:
    """The ``toml`` blocks of ``document``."""
    text = (REPO / document).read_text(encoding="utf-8")
    return [textwrap_dedent(b) for b in re.findall(r"^ *```toml\n(.*?)^ *```", text, flags=re.S | re.M)]


def textwrap_dedent(text: str) -> str:
    """The snippet without the list item's indentation."""
    import textwrap  # noqa: PLC0415

    return textwrap.dedent(text)


SNIPPETS = [(d, s) for d in DATA["documents"] for s in toml_snippets(d)]
