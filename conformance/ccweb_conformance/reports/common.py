"""Wording shared by the reports: totals, status labels, problems, transcripts."""

from __future__ import annotations

import json
from typing import Any

import ccweb_spec
from ccweb_conformance.reports.model import RequirementResult, RequirementStatus, RunResult, ScenarioResult
from ccweb_conformance.transport.exchange import Exchange

__all__ = [
    "REQUIREMENT_LABELS",
    "first_line",
    "format_transcript",
    "grouped_requirements",
    "problem",
    "run_notes",
    "totals_line",
    "truncate",
]

REQUIREMENT_LABELS: dict[RequirementStatus, str] = {
    "passed": "PASS",
    "failed": "FAIL",
    "warning": "WARN",
    "xfailed": "XFAIL",
    "untested": "untested",
}

_OPTIONAL_TOTALS = (
    ("warning", "warnings"),
    ("xfailed", "xfailed"),
    ("xpassed", "xpassed"),
    ("skipped", "skipped"),
    ("notrun", "not run"),
)


def totals_line(run: RunResult) -> str:
    """``N passed, N failed[, N warnings][, N xfailed][, N xpassed][, N skipped] in X.XXs`` (scenarios)."""
    counts = run.counts()
    parts = [f"{counts['passed']} passed", f"{counts['failed']} failed"]
    parts += [f"{counts[key]} {word}" for key, word in _OPTIONAL_TOTALS if counts[key]]
    return f"{', '.join(parts)} in {run.duration_s:.2f}s"


def run_notes(run: RunResult) -> list[str]:
    """What stopped the run early and what the server left running, one line each."""
    not_run = run.counts()["notrun"]
    notes = []
    if run.interrupted is not None:
        notes.append(f"INTERRUPTED by {run.interrupted}: {not_run} scenarios not run")
    elif run.stopped is not None:
        notes.append(f"stopped early: {not_run} scenarios {run.stopped}")
    if run.leftover_processes:
        shown = ", ".join(run.leftover_processes[:5])
        more = f" and {len(run.leftover_processes) - 5} more" if len(run.leftover_processes) > 5 else ""
        notes.append(
            f"warning: the server left {len(run.leftover_processes)} processes running after it was stopped "
            f"(the runner killed them): {shown}{more}"
        )
    return notes


def grouped_requirements(run: RunResult) -> list[tuple[ccweb_spec.Group, list[RequirementResult]]]:
    """Requirement verdicts under their group, groups in spec order; withdrawn ones left out."""
    results = [r for r in run.requirement_results() if r.requirement.level != "WITHDRAWN"]
    return [(g, [r for r in results if r.requirement.group == g.id]) for g in ccweb_spec.groups()]


def problem(scenario: ScenarioResult) -> str | None:
    """What went wrong in a scenario, in words, or None when there is nothing to say."""
    if scenario.status == "xpassed":
        return f"expected failure passed: {scenario.expected_failure_reason or 'no reason given'}"
    if scenario.status in ("failed", "warning", "xfailed", "skipped", "notrun"):
        return scenario.message or (None if scenario.status == "skipped" else f"scenario {scenario.status}")
    return None


def first_line(text: str) -> str:
    """The first non-blank line of a text."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def truncate(text: str, limit: int) -> str:
    """The text cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit} more characters)"


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def format_transcript(exchanges: list[Exchange]) -> str:
    """The exchanges as plain text: ``-->`` what was sent, ``<--`` what came back."""
    lines: list[str] = []
    for exchange in exchanges:
        sent = exchange.sent_text if exchange.request is None else _dump(exchange.request)
        lines.append(f"--> {sent or '(nothing)'}")
        wire = ", ".join(
            part
            for part in (
                f"HTTP {exchange.http_status}" if exchange.http_status is not None else "",
                exchange.content_type or "",
                f"{exchange.elapsed_ms:.1f} ms",
            )
            if part
        )
        received = exchange.received_text or (_dump(exchange.response) if exchange.response is not None else "")
        lines.append(f"<-- [{wire}] {received or '(nothing received)'}")
        lines.extend(f"    ! {violation}" for violation in exchange.violations)
    return "\n".join(lines)
