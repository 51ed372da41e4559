"""Wording shared by the reports: totals, status labels, problems, transcripts."""

from __future__ import annotations

import json
from typing import Any

import ccweb_spec
from ccweb_conformance.i18n import Messages, messages
from ccweb_conformance.reports.model import RequirementResult, RunResult, ScenarioResult
from ccweb_conformance.transport.exchange import Exchange

__all__ = [
    "first_line",
    "format_transcript",
    "grouped_requirements",
    "problem",
    "run_notes",
    "totals_line",
]

_OPTIONAL_TOTALS = ("warning", "xfailed", "xpassed", "skipped", "notrun")


def totals_line(run: RunResult, say: Messages | None = None) -> str:
    """``N passed, N failed[, N warnings (1 warning)][, N xfailed][, N xpassed][, N skipped] in X.XXs`` (scenarios)."""
    say = say or messages()
    counts = run.counts()
    keys = ["passed", "failed", *(key for key in _OPTIONAL_TOTALS if counts[key])]
    one = {"warning"}  # the words pytest makes singular ("1 warning")
    parts = say("totals.separator").join(
        say(f"totals.{key}_one" if key in one and counts[key] == 1 else f"totals.{key}", n=counts[key]) for key in keys
    )
    return say("totals.line", parts=parts, seconds=run.duration_s)


def run_notes(run: RunResult, say: Messages) -> list[str]:
    """What stopped the run early and what the server left running, one line each."""
    not_run = run.counts()["notrun"]
    notes = []
    if run.interrupted is not None:
        notes.append(say("notes.interrupted", signal=run.interrupted, n=not_run))
    elif run.stopped is not None:
        notes.append(say("notes.stopped", n=not_run, reason=run.stopped))
    if run.leftover_processes:
        left = run.leftover_processes
        more = say("notes.more", n=len(left) - 5) if len(left) > 5 else ""
        notes.append(say("notes.leftover", n=len(left), shown=", ".join(left[:5]), more=more))
    return notes


def grouped_requirements(run: RunResult) -> list[tuple[ccweb_spec.Group, list[RequirementResult]]]:
    """Requirement verdicts under their group, groups in spec order; withdrawn ones left out."""
    results = [r for r in run.requirement_results() if r.requirement.level != "WITHDRAWN"]
    return [(g, [r for r in results if r.requirement.group == g.id]) for g in ccweb_spec.groups()]


def problem(scenario: ScenarioResult, say: Messages | None = None) -> str | None:
    """What went wrong in a scenario, in words, or None when there is nothing to say."""
    say = say or messages()
    if scenario.status == "xpassed":
        reason = scenario.expected_failure_reason or say("problem.no_reason")
        return say("problem.expected_failure_passed", reason=reason)
    if scenario.status in ("failed", "warning", "xfailed", "skipped", "notrun"):
        fallback = None if scenario.status == "skipped" else say("problem.scenario_status", status=scenario.status)
        return scenario.message or fallback
    return None


def first_line(text: str) -> str:
    """The first non-blank line of a text."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def format_transcript(exchanges: list[Exchange]) -> str:
    """The exchanges as plain text: ``-->`` what was sent, ``<--`` what came back."""
    lines: list[str] = []
    for exchange in exchanges:
        sent = exchange.sent_text if exchange.request is None else _dump(exchange.request)
        lines.append(f"--> {sent or '(nothing)'}")
        status = f"HTTP {exchange.http_status}" if exchange.http_status is not None else ""
        wire = ", ".join(filter(None, (status, exchange.content_type, f"{exchange.elapsed_ms:.1f} ms")))
        received = exchange.received_text or (_dump(exchange.response) if exchange.response is not None else "")
        lines.append(f"<-- [{wire}] {received or '(nothing received)'}")
        lines.extend(f"    ! {violation}" for violation in exchange.violations)
    return "\n".join(lines)
