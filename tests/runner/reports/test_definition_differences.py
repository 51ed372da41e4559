"""TOOL-2's failure shows one difference per key, not two cut whole-object blobs (issue 23)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO

RUN = Path(__file__).parent / "reports_run.py"


def block(mutant: str, tmp_path: Path) -> list[str]:
    command = [sys.executable, str(RUN), mutant, "run", "--in-process", "--tags", "TOOL-2",
               "--cucumberjson", str(tmp_path / "c.json")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=REPO)
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    start = lines.index("FAIL ac01_tool_definition.feature::The input schema declares exactly the contract's arguments")
    return lines[start + 2 : start + 5]


@pytest.mark.parametrize(
    ("mutant", "expected"),
    [
        (
            "schema_limit_max_100",
            [
                "    check        the input schema's properties differ from the contract",
                "    differences  $.properties.limit.maximum: expected 50, got 100",
                "    sent         tools/list (no arguments field)",
            ],
        ),
        (
            "schema_extra_property",
            [
                "    check        the input schema declares properties the contract does not",
                '    expected     ["conversationId", "limit", "maxChars"]',
                '    got          ["conversationId", "cursor", "limit", "maxChars"]',
            ],
        ),
    ],
)
def test_the_schema_check_names_the_key_that_differs(mutant: str, expected: list[str], tmp_path: Path) -> None:
    assert block(mutant, tmp_path) == expected
