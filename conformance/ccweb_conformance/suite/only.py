"""Selecting scenarios by name (``--last-failed``), and naming what a collection planned (``--collect-only``)."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.items import is_scenario, planned_of

__all__ = ["OnlyScenarios", "planned_scenarios"]


class OnlyScenarios:
    """A pytest plugin object: keeps only the scenarios named ``file.feature::Name [example]``.

    Other items (none in the bundled suite) are left alone; what is dropped is reported as
    deselected, as ``-k`` does, so the run's selection is never taken for the full suite.
    """

    def __init__(self, names: Collection[str]) -> None:
        self.names = frozenset(names)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Deselect every scenario whose name is not one of :attr:`names`."""
        kept: list[pytest.Item] = []
        dropped: list[pytest.Item] = []
        for item in items:
            wanted = not is_scenario(item) or planned_of(item).nodeid in self.names
            (kept if wanted else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept


def planned_scenarios(collector: ResultCollector) -> list[tuple[str, tuple[str, ...]]]:
    """The scenarios a collection selected, in run order: (``file.feature::Name [example]``, requirement IDs)."""
    return [(planned.nodeid, planned.requirements) for planned in collector.planned]
