"""GitHub Actions annotations: the failed requirements on the workflow run's page.

When ``GITHUB_ACTIONS`` is ``true``, ``run`` prints, after the console summary, one ``::error``
workflow command per failed requirement, one ``::warning`` per SHOULD-level warning and one ``::warning``
per requirement not reached (its scenarios ran but stopped before any check of it: never a pass) (at most
:data:`ANNOTATION_LIMIT` of each, GitHub's own limit per step, then one plain line counting the
rest). Each points at the feature file and line of the first scenario charged to the
requirement, is titled ``REQ-ID (LEVEL): statement`` and holds the scenario, the check with
expected and got, the hint and the command that reruns the scenario.

The text is the run's neutralised text (:func:`~ccweb_conformance.reports.neutral.neutral`), then
escaped as GitHub's workflow commands want it: in the message ``%``, carriage return and line
feed (``%25``, ``%0D``, ``%0A``), so a message is one line whatever the server sent; in a
property also ``:`` and ``,`` (``%3A``, ``%2C``).

The Markdown report written to the file ``GITHUB_STEP_SUMMARY`` names is appended to it, as GitHub's
convention for the step summary wants (:func:`is_step_summary`): an earlier step's text stays.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ccweb_conformance.i18n import DEFAULT_LANGUAGE
from ccweb_conformance.reports.failure_block import headline, scenario_hint
from ccweb_conformance.reports.model import RequirementResult, RunResult, ScenarioResult, not_reached
from ccweb_conformance.reports.neutral import neutral

__all__ = ["ANNOTATION_LIMIT", "FEATURES_FOLDER", "annotation_lines", "in_github_actions", "is_step_summary"]

ANNOTATION_LIMIT = 10
"""Annotations of each kind (error, warning) printed at most: GitHub shows no more per step."""
FEATURES_FOLDER = "features/ccweb_features"
"""Where the feature files are, relative to the kit's repository root."""
TITLE_STATEMENT_LIMIT = 72
"""Characters of the requirement's statement in an annotation's title."""
MESSAGE_LINE_LIMIT = 300
"""Characters of the scenario's own message kept per line when it has no failure detail."""


def in_github_actions(environ: Mapping[str, str] | None = None) -> bool:
    """True when running as a GitHub Actions step (``GITHUB_ACTIONS=true``)."""
    return (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true"


def is_step_summary(path: Path | str, environ: Mapping[str, str] | None = None) -> bool:
    """True when ``path`` is the file ``GITHUB_STEP_SUMMARY`` names (the same path, or the same file)."""
    summary = (os.environ if environ is None else environ).get("GITHUB_STEP_SUMMARY")
    if not summary or str(path) == "-":
        return False
    if os.path.abspath(summary) == os.path.abspath(path):
        return True
    try:
        return os.path.samefile(summary, path)
    except OSError:
        return False


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, and ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _short(statement: str) -> str:
    statement = " ".join(statement.split())
    if len(statement) <= TITLE_STATEMENT_LIMIT:
        return statement
    cut = statement[: TITLE_STATEMENT_LIMIT]
    cut = cut.rsplit(" ", 1)[0] if " " in cut else cut[: TITLE_STATEMENT_LIMIT - 1]  # at a word's end
    return cut.rstrip(" ,;:") + "…"


def _message(scenario: ScenarioResult, language: str) -> str:
    lines = [scenario.nodeid]
    if scenario.detail is not None:
        lines.append(headline(scenario, language))
        hint = scenario_hint(scenario, language)
        if hint is not None:
            lines.append(f"hint: {hint}")
    elif scenario.message:
        lines += [line[:MESSAGE_LINE_LIMIT] for line in scenario.message.strip().splitlines()[:3]]
    if scenario.reproducer:
        lines.append(f"rerun: {scenario.reproducer}")
    return "\n".join(lines)


def _bears(result: RequirementResult, scenario: ScenarioResult) -> bool:
    """The scenario an annotation of the requirement points at: one charged to it, or one that did not reach it."""
    if result.status == "notreached":
        return not_reached(result.requirement.id, scenario)
    return result.requirement.id in scenario.failed_requirements()


def _annotation(kind: str, result: RequirementResult, language: str) -> str:
    requirement = result.requirement
    scenario = next(s for s in result.scenarios if _bears(result, s))
    message = _message(scenario, language)
    if result.status == "notreached":
        title = f"{requirement.id} ({requirement.level}) not reached: {_short(requirement.statement)}"
        stopped = ", ".join(scenario.failed_requirements())
        message = f"no check of {requirement.id} ran: the scenario stopped at a check of {stopped}\n{message}"
    else:
        title = f"{requirement.id} ({requirement.level}): {_short(requirement.statement)}"
    properties = {"file": f"{FEATURES_FOLDER}/{scenario.feature_file}", "line": str(scenario.line), "title": title}
    shown = ",".join(f"{name}={escape_property(value)}" for name, value in properties.items() if value)
    return f"::{kind} {shown}::{escape_data(message)}"


def annotation_lines(run: RunResult, *, language: str = DEFAULT_LANGUAGE, limit: int = ANNOTATION_LIMIT) -> list[str]:
    """The workflow commands for a run: ``::error`` per failed requirement, ``::warning`` per warning."""
    run = neutral(run)
    results = run.requirement_results()
    lines: list[str] = []
    kinds = (
        ("error", "failed", "failed requirements"),
        ("warning", "warning", "warnings"),
        ("warning", "notreached", "requirements not reached"),
    )
    for kind, status, noun in kinds:
        charged = [r for r in results if r.status == status and any(_bears(r, s) for s in r.scenarios)]
        lines += [_annotation(kind, result, language) for result in charged[:limit]]
        if len(charged) > limit:
            lines.append(f"ccweb-conformance: {len(charged) - limit} more {noun} not annotated (see the reports)")
    return lines
