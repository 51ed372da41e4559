"""Secrets redacted in the model, where they stand, before any format renders it (docs/runner.md, "Secrets").

In a run, the text that comes from outside the kit is redacted: the target's description, why the run stopped,
the processes left behind, and per scenario its message (it quotes the server), transcript, reproducer, its rerun
alone (what stopped it) and the value its failed check got; the kit's own words (names, steps, requirements,
statuses, the check, what it expected) are never touched. Another document (a profile) has every string redacted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar, cast

from ccweb_conformance.options import redact
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.neutral import map_strings

__all__ = ["redacted"]

_T = TypeVar("_T")
_RUN_OUTSIDE = ("target", "stopped", "leftover_processes", "processes")
_SCENARIO_OUTSIDE = ("message", "transcript", "reproducer", "rerun")


def redacted(document: _T, secrets: Sequence[str]) -> _T:
    """A copy of ``document`` with every secret in its outside text replaced by ``***`` (itself when none is)."""
    if not secrets:
        return document
    change = partial(redact, secrets=secrets)
    if not isinstance(document, RunResult):
        return map_strings(document, change)
    scenarios = [_scenario(scenario, change) for scenario in document.scenarios]
    return cast(_T, dataclasses.replace(_replaced(document, _RUN_OUTSIDE, change), scenarios=scenarios))


def _scenario(scenario: ScenarioResult, change: Callable[[str], str]) -> ScenarioResult:
    detail = None if scenario.detail is None else _replaced(scenario.detail, ("actual",), change)
    shown: ScenarioResult = _replaced(scenario, _SCENARIO_OUTSIDE, change)
    return dataclasses.replace(shown, detail=detail)


def _replaced(value: Any, fields: tuple[str, ...], change: Callable[[str], str]) -> Any:
    return dataclasses.replace(value, **{name: map_strings(getattr(value, name), change) for name in fields})
