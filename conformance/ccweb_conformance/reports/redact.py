"""Secrets redacted in the model, where they stand, before any format renders it (docs/runner.md, "Secrets").

In a run, the text that comes from outside the kit is redacted: the target's description, why the run stopped,
the processes left behind, and per scenario its message, failure detail, transcript and reproducer; the kit's
own words (names, steps, requirements, statuses) are never touched. Another document (a profile) has every
string redacted.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import partial
from typing import TypeVar

from ccweb_conformance.options import redact
from ccweb_conformance.reports.model import RunResult, ScenarioResult
from ccweb_conformance.reports.neutral import map_strings

__all__ = ["redacted"]

_T = TypeVar("_T")


def redacted(document: _T, secrets: Sequence[str]) -> _T:
    """A copy of ``document`` with every secret in its outside text replaced by ``***`` (itself when none is)."""
    if not secrets:
        return document
    change = partial(redact, secrets=secrets)
    if not isinstance(document, RunResult):
        return map_strings(document, change)
    outside = ("target", "stopped", "leftover_processes", "processes")
    changes = {name: map_strings(getattr(document, name), change) for name in outside}
    scenarios = [_scenario(scenario, secrets) for scenario in document.scenarios]
    return dataclasses.replace(document, scenarios=scenarios, **changes)


def _scenario(scenario: ScenarioResult, secrets: Sequence[str]) -> ScenarioResult:
    change = partial(redact, secrets=secrets)
    outside = ("message", "detail", "transcript", "reproducer")
    return dataclasses.replace(scenario, **{name: map_strings(getattr(scenario, name), change) for name in outside})
