"""What the run did, said where the summary names its target and its totals (issue 23).

The bundled reference gets a note saying so and how to test one's own server; the totals get
a line reconciling them with the progress count, which counts Gherkin scenarios only: the
whole-run checks (the handshake when it broke, the RO-2 audit, the fuzz phase) are results too.
"""

from __future__ import annotations

from ccweb_conformance.i18n import Messages, translated
from ccweb_conformance.reports.model import RunResult, ScenarioResult

__all__ = ["counted_line", "inputs_lines", "reference_note", "run_check"]

_RUN_CHECKS = {"protocol.feature": "handshake", "audit": "audit", "fuzz": "fuzz"}
"""Feature files of results that are not Gherkin scenarios (line 0), and their names."""


def run_check(scenario: ScenarioResult) -> str | None:
    """The name of a whole-run check (handshake, audit, fuzz), or None for a Gherkin scenario."""
    return _RUN_CHECKS.get(scenario.feature_file) if scenario.line == 0 else None


def reference_note(run: RunResult, say: Messages) -> list[str]:
    """One line when the target was the bundled reference: so, and how to point the kit at yours."""
    return [say("console.reference_note")] if run.bundled_reference else []


def inputs_lines(run: RunResult, say: Messages) -> list[str]:
    """The files the run read besides the features: the config file and the expected-failures file, if any."""
    lines = [say("console.config_file", path=run.config_file)] if run.config_file else []
    if run.expected_failures_file:
        lines.append(say("console.expected_failures_file", path=run.expected_failures_file))
    return lines


def counted_line(run: RunResult, say: Messages) -> list[str]:
    """``213 results: 211 scenarios + 2 run checks (audit, fuzz)``, when there were run checks."""
    checks = [name for s in run.scenarios if (name := run_check(s)) is not None]
    if not checks:
        return []
    key = "console.counted_one" if len(checks) == 1 else "console.counted"
    count = len(run.scenarios) - len(checks)
    scenarios = say("console.scenario_count_one" if count == 1 else "console.scenario_count", count=count)
    return [say(key, total=len(run.scenarios), scenarios=scenarios, checks=len(checks), names=", ".join(checks))]


def skipped_lines(run: RunResult, say: Messages) -> list[str]:
    """One line per skipped scenario, with why: a skip is a check not made, never a pass, so it is named."""
    lines = []
    for scenario in run.scenarios:
        if scenario.status == "skipped":
            reason = (scenario.message or "").removeprefix("skipped: ").strip() or say("console.skipped_no_reason")
            lines.append(say("console.skipped", scenario=scenario.nodeid, reason=translated(reason, say.language)))
    return lines
