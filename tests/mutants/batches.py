"""The mutant and variant batches split over the test workers under ``--dist loadfile``.

A batch (``run.py batch``) imports the runner once and forks one child per mutant, two at a time;
one batch for the whole catalogue would keep one worker busy while the other waits. So the names
are dealt into :data:`PARTS` parts (every other name, the catalogue's order), and the test session's
scheduler (``tests/conftest.py``) gives each part of a batch file its own scope (:func:`scope`), as
if it were a file of its own: each part goes to a worker. :class:`Batches` runs a part's batch the
first time one of its tests asks for a name, on the worker that runs that part (``-n 0``: one after
the other, as one batch would).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mutants.catalogue import MUTANTS, VARIANTS
from mutants.run import run_batch, selected_params

PARTS = 2
BATCH_FILES = {"test_mutants.py": MUTANTS, "test_variants.py": VARIANTS}
"""The test files whose tests named after a mutant or variant (``test_x[name]``) are split by part."""
_PARAMETER = re.compile(r"\[([^\]]+)\]$")


def part_of(names: Sequence[str], name: str) -> int:
    """The part of the batch ``name`` runs in."""
    return list(names).index(name) % PARTS


def scope(nodeid: str) -> str | None:
    """The scheduling scope of a test of a batch file named after one of its names (``FILE::part-N``), or None
    (the test goes with its file, as ``--dist loadfile`` sends every test)."""
    file, _, rest = nodeid.partition("::")
    table = BATCH_FILES.get(Path(file).name)
    found = _PARAMETER.search(rest)
    if table is None or found is None or found[1] not in table:
        return None
    return f"{file}::part-{part_of(list(table), found[1])}"


class Batches:
    """The batch runs of one test module: a part's batch is run the first time one of its names is asked for."""

    def __init__(self, kind: str, names: Sequence[str], request: pytest.FixtureRequest, folder: Path, test: str):
        self.kind, self.names, self.folder = kind, list(names), folder
        self.selected = selected_params(request, test) or self.names
        self.runs: dict[int, dict[str, dict[str, Any]]] = {}

    def __call__(self, name: str) -> dict[str, Any]:
        """The exit code, report and log of ``name``'s run."""
        part = part_of(self.names, name)
        if part not in self.runs:
            wanted = [n for n in self.selected if part_of(self.names, n) == part]
            folder = self.folder / f"part-{part}"
            folder.mkdir()
            self.runs[part] = run_batch(self.kind, wanted, folder)
        return self.runs[part][name]
