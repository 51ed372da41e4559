"""The console summary printed at the end of a run.

Requirements are listed under their group (acceptance criteria first, in spec order), each
with its level and verdict; failing, warning and unexpectedly passing scenarios are listed
under the requirement with their message (first line; the whole message when verbose).
The last line is the scenario totals, e.g. ``48 passed, 2 failed, 1 warnings in 3.21s``
(``INTERRUPTED: 9 passed, 0 failed, 159 not run in 2.10s`` when a signal stopped the run);
with colour it is wrapped in one ANSI colour, and stripping ANSI codes gives that exact text.
"""

from __future__ import annotations

from ccweb_conformance.reports.common import (
    REQUIREMENT_LABELS,
    first_line,
    grouped_requirements,
    problem,
    run_notes,
    totals_line,
)
from ccweb_conformance.reports.model import RequirementResult, RunResult, ScenarioResult

__all__ = ["render_summary"]

_RESET = "\033[0m"
_COLOURS = {
    "PASS": "\033[32m",
    "FAIL": "\033[31m",
    "WARN": "\033[33m",
    "XFAIL": "\033[33m",
    "XPASS": "\033[31m",
    "untested": "\033[2m",
    "SKIP": "\033[2m",
    "NOT RUN": "\033[31m",
    "INTERRUPTED": "\033[31m",
    "bold": "\033[1m",
}
_SCENARIO_LABELS = {
    "passed": "PASS",
    "failed": "FAIL",
    "warning": "WARN",
    "xfailed": "XFAIL",
    "xpassed": "XPASS",
    "skipped": "SKIP",
    "notrun": "NOT RUN",
}
_SHOWN = ("failed", "xpassed", "warning")
"""Scenario statuses listed under a requirement without --verbose."""


def render_summary(run: RunResult, *, color: bool, verbose: bool) -> str:
    """The summary as text (no trailing newline)."""
    paint = _Paint(color)
    verdict = {
        "interrupted": paint("INTERRUPTED", "INTERRUPTED"),
        "failed": paint("FAIL", "FAILED"),
        "passed": paint("PASS", "PASSED"),
    }[run.verdict]
    protocol = run.protocol_version or "not negotiated"
    lines = [
        f"{paint('bold', 'ccweb_list_user_inputs conformance')}: {verdict}",
        f"target: {run.target} ({run.transport}, protocol {protocol}, spec {run.spec_version}, "
        f"kit {run.kit_version}{', strict' if run.strict else ''})",
        *run_notes(run),
    ]
    width = max((len(s) for s in REQUIREMENT_LABELS.values()), default=0)
    for group, results in grouped_requirements(run):
        if not results:
            continue
        lines += ["", paint("bold", f"{group.id}  {group.title}")]
        for result in results:
            lines += _requirement_lines(result, width, paint, verbose)
    counts = run.counts()
    colour = "FAIL" if run.failed else "WARN" if counts["warning"] or counts["xfailed"] else "PASS"
    lines += ["", paint(colour, totals_line(run))]
    if run.interrupted is not None:
        lines[-1] = paint("FAIL", f"INTERRUPTED: {totals_line(run)}")
    return "\n".join(lines)


def _requirement_lines(result: RequirementResult, width: int, paint: _Paint, verbose: bool) -> list[str]:
    label = REQUIREMENT_LABELS[result.status]
    requirement = result.requirement
    lines = [f"  {paint(label, label.ljust(width))}  {requirement.id:<9} {requirement.level}"]
    for scenario in result.scenarios:
        if verbose or scenario.status in _SHOWN:
            lines += _scenario_lines(scenario, paint, verbose)
    return lines


def _scenario_lines(scenario: ScenarioResult, paint: _Paint, verbose: bool) -> list[str]:
    label = _SCENARIO_LABELS[scenario.status]
    head = f"      {paint(label, label)} {scenario.nodeid}"
    text = problem(scenario)
    if scenario.status == "xfailed" and scenario.expected_failure_reason:
        text = f"expected failure: {scenario.expected_failure_reason}"
    if not text:
        return [head]
    if not verbose:
        return [f"{head}: {first_line(text)}"]
    body = [f"          {line}" for line in text.splitlines()]
    return [head, *body]


class _Paint:
    """Wraps text in ANSI colour codes, or not."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, key: str, text: str) -> str:
        if not self.enabled or key not in _COLOURS:
            return text
        return f"{_COLOURS[key]}{text}{_RESET}"
