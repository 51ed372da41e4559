"""Which planned scenarios a run keeps: ``--tags``, ``-k`` (or ``--co`` lines pasted into it), ``--last-failed``'s
names; and the expected-failures file's scenario entries. No pytest: ``-k`` is read by ``engine/keyword.py``."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from ccweb_conformance.engine.keyword import keyword_matches
from ccweb_conformance.engine.scenarios import Scenario
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.suite.expected_failures import ExpectedFailures
from ccweb_conformance.suite.planned import PlannedScenario
from ccweb_conformance.suite.selection import check_keyword, pasted_match, pasted_scenarios
from ccweb_conformance.values import Selection

__all__ = ["Chosen", "choose"]


Chosen = tuple[tuple[PlannedScenario, Scenario, str | None], ...]
"""The scenarios to run, in order, each with its expected-failures scenario entry's reason (or None)."""


def chooser(
    selection: Selection,
    scenarios: Sequence[ScenarioRef],
    *,
    only: Collection[str] = (),
    expected: ExpectedFailures | None = None,
    keyword: bool = True,
) -> Callable[[PlannedScenario], tuple[bool, str | None]]:
    """Whether the selection keeps a scenario, and the reason of its expected-failures scenario entry (or None).

    ``scenarios``: the features' (``--co`` lines name them); ``only``: the names ``--last-failed`` keeps (none: all);
    ``keyword``: ``-k`` judged here (pytest judges its own, but for ``--co`` lines pasted into it, judged here always).
    """
    pasted = pasted_scenarios(selection.keyword, scenarios) if selection.keyword else None
    compiled = check_keyword(selection.keyword) if keyword and selection.keyword and pasted is None else None
    wanted = {t.strip().lstrip("@").casefold() for t in selection.tags.split(",")} if selection.tags else None

    def keeps(planned: PlannedScenario) -> tuple[bool, str | None]:
        tags = {t.casefold() for t in planned.tags}
        if (
            (wanted is not None and not wanted & tags)
            or (pasted is not None and not pasted_match(planned.nodeid, pasted))
            or (compiled is not None and not compiled.evaluate(lambda t, /, **_: keyword_matches(t, planned.keywords)))
            or (only and planned.nodeid not in only)
        ):
            return False, None
        entry = expected.scenario_entry_for(planned.nodeid) if expected is not None else None
        return True, None if entry is None else entry.reason

    return keeps


def choose(
    selection: Selection,
    plan: Sequence[tuple[PlannedScenario, Scenario]],
    scenarios: Sequence[ScenarioRef],
    *,
    only: Collection[str] = (),
    expected: ExpectedFailures | None = None,
) -> Chosen:
    """The scenarios of ``plan`` the selection keeps, in order."""
    keeps = chooser(selection, scenarios, only=only, expected=expected)
    verdicts = ((planned, scenario, keeps(planned)) for planned, scenario in plan)
    return tuple((planned, scenario, reason) for planned, scenario, (kept, reason) in verdicts if kept)
