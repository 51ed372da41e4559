"""The order in which ``--dist loadfile`` sends the test files to the workers: the longest first.

xdist sends the files with the most tests first, so a long file of few tests (one or two whole runs) starts
last and can end the session alone on one worker. ``scheduling.yaml`` lists the longest files, longest first;
the test session's scheduler (``conftest.py``) sends them before every other file, which keep xdist's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml

SCHEDULING = Path(__file__).with_name("scheduling.yaml")


def listed_longest() -> list[str]:
    """The scopes ``scheduling.yaml`` lists, longest first."""
    data = yaml.safe_load(SCHEDULING.read_text(encoding="utf-8"))
    return [str(scope) for scope in data["longest_first"]]


def longest_first(scopes: Sequence[str], listed: Sequence[str]) -> list[str]:
    """``scopes`` with the ``listed`` ones first, in the listed order; the others after them, in their own order."""
    rank = {scope: index for index, scope in enumerate(listed)}
    return sorted(scopes, key=lambda scope: rank.get(scope, len(rank)))
