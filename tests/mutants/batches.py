"""The mutant and variant batches split over the test workers: each part its own ``xdist_group``.

A batch (``run.py batch``) imports the runner once and forks one child per mutant, two at a time;
one batch for the whole catalogue would keep one worker busy while the other waits. So the names
are dealt into :data:`PARTS` parts (every other name, the catalogue's order), each test is marked
with its part's group, and ``--dist loadgroup`` gives each part to a worker. :class:`Batches` runs a
part's batch the first time one of its tests asks for a name, on the worker that runs that part
(``-n 0``: one after the other, as one batch would).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from mutants.run import run_batch, selected_params

PARTS = 2


def part_of(names: Sequence[str], name: str) -> int:
    """The part of the batch ``name`` runs in."""
    return list(names).index(name) % PARTS


def group(kind: str, names: Sequence[str], name: str) -> str:
    """The ``xdist_group`` of the part ``name`` runs in (``mutant-batch-0``)."""
    return f"{kind}-batch-{part_of(names, name)}"


def batch_params(kind: str, names: Sequence[str]) -> list[Any]:
    """One parameter per name, marked with its part's ``xdist_group``."""
    return [pytest.param(name, marks=pytest.mark.xdist_group(group(kind, names, name))) for name in names]


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
