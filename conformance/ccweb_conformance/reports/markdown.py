"""A compact Markdown report for a CI step summary (``$GITHUB_STEP_SUMMARY``).

A header with the verdict, target, protocol and spec version and the totals; a table of
requirements per group; then a collapsible section per failed (or unexpectedly passing)
scenario and per warning, with the message code-fenced and cut to a readable length; and a
list of the expected failures with their reasons.
"""

from __future__ import annotations

import re
from pathlib import Path

from ccweb_conformance.reports.common import grouped_requirements, problem, run_notes, totals_line, truncate
from ccweb_conformance.reports.model import RequirementResult, RequirementStatus, RunResult, ScenarioResult

__all__ = ["render_markdown", "write_markdown"]

MESSAGE_LIMIT = 2000
"""Characters of a message shown in a details section."""
DETAILS_LIMIT = 50
"""Details sections shown at most (GitHub caps a step summary at 1 MiB)."""

STATUS_TEXT: dict[RequirementStatus, str] = {
    "passed": "✅ pass",
    "failed": "❌ fail",
    "warning": "⚠️ warning",
    "xfailed": "🔶 xfail",
    "untested": "⚪ untested",
}


def render_markdown(run: RunResult) -> str:
    """The report as Markdown text."""
    verdict = {"interrupted": "⛔ INTERRUPTED", "failed": "❌ failed", "passed": "✅ passed"}[run.verdict]
    lines = [
        f"## ccweb_list_user_inputs conformance: {verdict}",
        "",
        f"**Target:** {_code(run.target)} ({run.transport})  ",
        f"**Protocol:** {_code(run.protocol_version or 'not negotiated')} · "
        f"**Spec:** {_code(run.spec_version)} · **Kit:** {_code(run.kit_version)}"
        f"{' · **strict**' if run.strict else ''}  ",
        f"**Scenarios:** {totals_line(run)}",
        *[f"  \n**{_cell(note)}**" for note in run_notes(run)],
    ]
    for group, results in grouped_requirements(run):
        if results:
            lines += ["", f"### {group.id}: {_cell(group.title)}", "", *_table(results)]
    lines += _details(run)
    return "\n".join(lines) + "\n"


def write_markdown(run: RunResult, path: Path, *, append: bool = False) -> None:
    """Write (or append, as to ``$GITHUB_STEP_SUMMARY``) the Markdown report."""
    with Path(path).open("a" if append else "w", encoding="utf-8", errors="backslashreplace") as out:
        out.write(render_markdown(run))


def _table(results: list[RequirementResult]) -> list[str]:
    rows = ["| Requirement | Level | Status | Scenarios |", "|---|---|---|---|"]
    for result in results:
        ran = sum(1 for s in result.scenarios if s.status not in ("skipped", "notrun"))
        rows.append(f"| {result.requirement.id} | {result.requirement.level} | {STATUS_TEXT[result.status]} | {ran} |")
    return rows


def _details(run: RunResult) -> list[str]:
    sections = [("Failures", ("failed", "xpassed")), ("Warnings", ("warning",))]
    lines: list[str] = []
    for title, statuses in sections:
        scenarios = [s for s in run.scenarios if s.status in statuses]
        if not scenarios:
            continue
        lines += ["", f"### {title}"]
        for scenario in scenarios[:DETAILS_LIMIT]:
            lines += ["", *_section(scenario)]
        if len(scenarios) > DETAILS_LIMIT:
            lines += ["", f"… and {len(scenarios) - DETAILS_LIMIT} more; see the JSON or JUnit report."]
    expected = [s for s in run.scenarios if s.status == "xfailed"]
    if expected:
        lines += ["", "### Expected failures", ""]
        lines += [f"- {_code(s.nodeid)}: {_cell(s.expected_failure_reason or 'no reason given')}" for s in expected]
    return lines


def _section(scenario: ScenarioResult) -> list[str]:
    text = truncate(problem(scenario) or "", MESSAGE_LIMIT)
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    summary = _html(f"{scenario.nodeid} ({', '.join(scenario.requirements)})")
    return ["<details>", f"<summary>{summary}</summary>", "", f"{fence}text", text, fence, "", "</details>"]


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    text = _cell(text)
    fence = "`" * (_longest_backtick_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
