"""Every command the documents show runs as written, placeholders replaced (issue 23).

The fenced ``sh`` blocks of the READMEs and ``docs/`` (not the generated living specs) and
the example lines of ``ccweb-conformance --help`` and ``run --help`` run here, each block's
commands in order in one scratch folder, against the bundled reference; a line ending in the
skip marker is not run (it says why). What replaces each placeholder, and the config that
bounds each run's time, are data: ``readme_commands.yaml``. The TOML config snippets run in
both file forms. The machinery is ``tests/readme_commands.py``; the help examples and the config
snippets run in ``test_readme_help_and_config.py``, the blocks of the guides beside the code (the exported
cases', the Node example's) in ``test_guide_commands.py`` (three files: three xdist workers).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from readme_commands import BLOCKS, RUNS, Block, help_examples, of_the_guides, run_block

pytestmark = pytest.mark.slow


def test_the_documents_have_the_commands_the_issue_names() -> None:
    everything = [c for b in BLOCKS for c in b.commands]
    venv_install = 'python3 -m venv ~/.ccweb-kit && ~/.ccweb-kit/bin/pip install "git+https://github.com/OWNER/REPO@COMMIT"'
    assert venv_install in everything  # the READMEs' isolated install
    assert 'pip install "git+https://github.com/OWNER/REPO@COMMIT"' in everything  # the Node example's
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


DOCUMENTS = [b for b in RUNS if not of_the_guides(b)]


@pytest.mark.parametrize("block", DOCUMENTS, ids=[b.where for b in DOCUMENTS])
def test_document_block_runs(block: Block, tmp_path: Path, server: dict[str, str]) -> None:
    assert run_block(block, tmp_path, server) == []
