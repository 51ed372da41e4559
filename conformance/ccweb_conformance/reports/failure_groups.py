"""Failures that say the same thing, grouped: one block for the group, every scenario still named.

Also the console's list of failure blocks (:func:`failure_blocks`), one per group.

A server that breaks one thing everywhere (a log line on stdout inside its tool) fails scenario
after scenario with the same block but for the scenario's own data (its conversation, its
arguments). Reports show the group once: the first scenario's block, then the others by name.
Two failures are the same when their status, check, every difference (or expected and got) and
hint are; the requirements they are charged to may differ (each scenario proves its own).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages
from ccweb_conformance.reports.common import format_transcript
from ccweb_conformance.reports.diff import differences
from ccweb_conformance.reports.failure_block import BLOCK_LIMIT, scenario_block, scenario_hint
from ccweb_conformance.reports.model import RunResult, ScenarioResult

__all__ = ["NAMES_SHOWN", "FailureGroup", "failure_blocks", "failure_groups"]

NAMES_SHOWN = 5
"""Scenarios of a group named under its block on the console (all of them with -v)."""
_SHOWN_STATUSES = ("failed", "warning")

_REQUIREMENT_LINE = re.compile(r"^[A-Z]+-\d+ \((MUST|SHOULD)\): ")
"""The lines a failure message opens with: each requirement charged, with its statement."""


@dataclass(frozen=True)
class FailureGroup:
    """Scenarios that failed the same way, in run order (the first one's block stands for all)."""

    number: int
    """1, 2, … in the order the groups' first scenarios ran."""
    scenarios: tuple[ScenarioResult, ...]

    @property
    def first(self) -> ScenarioResult:
        """The scenario whose block is shown."""
        return self.scenarios[0]

    @property
    def others(self) -> tuple[ScenarioResult, ...]:
        """The scenarios shown by name only."""
        return self.scenarios[1:]


def _key(scenario: ScenarioResult) -> tuple[str, ...]:
    """What a failure says, without whom it is charged to nor the scenario's own data (what it sent and stored)."""
    detail = scenario.detail
    if detail is not None:
        found = differences(detail.expected, detail.actual) if detail.compared else []
        compared = [(d.path, d.expected, d.actual) for d in found] if found else [(detail.expected, detail.actual)]
        said = f"{detail.check}\n{compared!r}"
    else:
        said = "\n".join(t for t in (scenario.message or "").splitlines() if not _REQUIREMENT_LINE.match(t))
    return (scenario.status, said, scenario_hint(scenario) or "")


def failure_groups(scenarios: list[ScenarioResult]) -> list[FailureGroup]:
    """``scenarios`` grouped by what their failure says, groups in the order their first scenario ran."""
    grouped: dict[tuple[str, ...], list[ScenarioResult]] = {}
    for scenario in scenarios:
        grouped.setdefault(_key(scenario), []).append(scenario)
    return [FailureGroup(number, tuple(members)) for number, members in enumerate(grouped.values(), 1)]


def failure_blocks(run: RunResult, *, verbose: bool = False, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """Every failure block of a run under a heading, one per group of identical failures, the group's other
    scenarios named under it (empty when nothing failed); verbose adds the transcript and names them all."""
    shown = [s for s in run.scenarios if s.status in _SHOWN_STATUSES and s.detail is not None]
    if not shown:
        return []
    say = messages(language)
    groups = failure_groups(shown)
    lines = [_heading(shown, say)]
    for group in groups if verbose else groups[:BLOCK_LIMIT]:
        lines += ["", *scenario_block(group.first, language)]
        if verbose and group.first.transcript:
            lines += [
                f"    {say('block.label.transcript')}",
                *(f"      {t}" for t in format_transcript(group.first.transcript).splitlines()),
            ]
        lines += _others(group, verbose, say)
    if len(groups) > BLOCK_LIMIT and not verbose:
        lines += ["", say("block.more_failures", count=sum(len(g.scenarios) for g in groups[BLOCK_LIMIT:]))]
    return lines


def _others(group: FailureGroup, verbose: bool, say: Messages) -> list[str]:
    """The group's other scenarios by name, under its block."""
    if not group.others:
        return []
    named = group.others if verbose else group.others[:NAMES_SHOWN]
    lines = [f"    {say('block.same_failure', count=len(group.others))}", *(f"      {s.nodeid}" for s in named)]
    if len(group.others) > len(named):
        lines.append(f"      {say('block.same_failure_more', count=len(group.others) - len(named))}")
    return lines


def _heading(shown: list[ScenarioResult], say: Messages) -> str:
    """The section title says what it holds: failures, warnings, or both."""
    failed = sum(s.status == "failed" for s in shown)
    warnings = len(shown) - failed
    if failed and warnings:
        return say("block.both_heading", count=len(shown), failed=failed, warnings=warnings)
    return say("block.failures_heading" if failed else "block.warnings_heading", count=len(shown))
