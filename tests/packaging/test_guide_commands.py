"""Every command of the guides beside the code runs as written (issue 23): the exported cases' guide
(``CASES.md`` and its translation, shipped in the kit) and the Node example's README, as
``test_readme_commands.py`` runs the READMEs' and ``docs/``'s (the machinery: ``tests/readme_commands.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from readme_commands import RUNS, Block, of_the_guides, run_block

pytestmark = pytest.mark.slow

GUIDES = [b for b in RUNS if of_the_guides(b)]


def test_the_guides_have_blocks_to_run() -> None:
    assert sorted(b.where.split(":")[0] for b in GUIDES) == [
        "conformance/ccweb_conformance/harness/CASES.md",
        "conformance/ccweb_conformance/harness/CASES.md",
        "conformance/ccweb_conformance/harness/CASES.md",
        "examples/node-server/README.md",
    ]


@pytest.mark.parametrize("block", GUIDES, ids=[b.where for b in GUIDES])
def test_document_block_runs(block: Block, tmp_path: Path, server: dict[str, str]) -> None:
    assert run_block(block, tmp_path, server) == []
