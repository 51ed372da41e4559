"""Cucumber JSON, the format cucumber-js writes and cucumber-reporting and most dashboards read.

One feature per feature file (``uri`` = the file), its scenarios as ``elements`` with their
steps; tags as ``[{"name": "@TAG"}]``; step durations in nanoseconds. Cucumber has no
warning or expected-failure status, so:

* a failed step of a *warning* scenario is ``pending`` (like cucumber-js, pending fails a
  run only when strict), or ``failed`` when the run is strict;
* a failed step of an *xfailed* scenario is ``skipped``, its error_message starting with
  ``expected failure: <reason>``;
* an *xpassed* scenario, or a failed one with no failed step, gets an ``after`` hook carrying
  the outcome and the message.

The message goes in the failing step's ``error_message``, led by the diagnosis: the headline
(requirement, check, first difference) and the hint when one applies, and ends with the scenario's
requirements none of whose checks it reached (``not reached: ARG-3``: never a pass). Steps keep their data
table and doc string (``arguments`` with js, ``rows`` and ``doc_string`` with jvm and ruby),
so viewers show the input. Run checks without Gherkin steps (the handshake, the whole-run
audit, the fuzz phase) get one step carrying their outcome, so viewers count them (an
element without steps shows as pending, its percentage as "NaN %"). The three schemas of
cucumber-json-schema (cucumber-js, cucumber-jvm, cucumber-ruby) contradict each other (a
step must have ``arguments`` for js and must not for jvm; tags carry a ``line`` for js and
ruby and must not for jvm; hooks are hidden steps for js, ``after`` for jvm and ruby), so
the report is written in one *flavour* (``--cucumber-flavour``, default js) and is valid
against that schema and accepted by Cucumber's own converter (``@cucumber/cucumber-json-converter``,
whose cucumber-jvm 7 schema has no embeddings), so the transcript follows the error message.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from ccweb_conformance.jsontext import finite_only
from ccweb_conformance.reports.common import format_transcript, problem
from ccweb_conformance.reports.eras_tested import protocol_shown
from ccweb_conformance.reports.failure_block import headline, scenario_hint
from ccweb_conformance.reports.model import RunResult, ScenarioResult, StepResult, unreached_requirements
from ccweb_conformance.reports.neutral import json_escapes
from ccweb_conformance.reports.rerun_alone import rerun_line

__all__ = ["build_cucumber", "render_cucumber"]

_NS = 1_000_000_000


def build_cucumber(run: RunResult, flavour: str = "js") -> list[dict[str, Any]]:
    """The report as JSON-ready data: a list of features, valid against the flavour's schema."""
    features: dict[str, list[ScenarioResult]] = {}
    for scenario in run.scenarios:
        features.setdefault(scenario.feature_file, []).append(scenario)
    return [
        {
            "uri": uri,
            "id": _slug(scenarios[0].feature),
            "keyword": "Feature",
            "name": scenarios[0].feature,
            "description": f"protocol {protocol_shown(run)}",
            "line": 1,
            "tags": [],
            "elements": [_element(run, s, flavour) for s in scenarios],
        }
        for uri, scenarios in features.items()
    ]


def render_cucumber(run: RunResult, flavour: str = "js") -> str:
    """The Cucumber JSON report as text, the server's text whole (:func:`~.neutral.json_escapes`)."""
    features = finite_only(build_cucumber(run, flavour))[0]  # RFC 8259: no bare NaN or Infinity
    return json_escapes(json.dumps(features, ensure_ascii=False, indent=2, allow_nan=False)) + "\n"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _outcome(run: RunResult, scenario: ScenarioResult) -> tuple[str, str | None]:
    """The status a failing step (or hook) shows, and the error message for it."""
    said = problem(scenario)
    text = None if said is None else _diagnosed(scenario, said)
    match scenario.status:
        case "warning":
            return ("failed" if run.strict else "pending"), f"warning (SHOULD): {text}"
        case "xfailed":
            return "skipped", f"expected failure: {scenario.expected_failure_reason}\n{text}"
        case "failed" | "xpassed" | "notrun":
            return "failed", text
        case "skipped":
            return "skipped", text
    return "passed", None


def _diagnosed(scenario: ScenarioResult, text: str) -> str:
    """The message led by the headline and the hint (when the scenario has a failure block), and followed by the
    requirements of the scenario none of whose checks it reached."""
    unreached = unreached_requirements(scenario)
    if unreached:
        text = f"{text}\n\nnot reached: {', '.join(unreached)} (the scenario stopped before any check of them)"
    if scenario.detail is None or scenario.status not in ("failed", "warning", "xfailed"):
        return text
    hint = scenario_hint(scenario)
    lead = headline(scenario) + ("" if hint is None else f"\nhint: {hint}")
    lead += "" if scenario.rerun is None else f"\n{rerun_line(scenario.rerun)}"
    return f"{lead}\n\n{text}"


def _own_steps(scenario: ScenarioResult) -> tuple[StepResult, ...]:
    """The scenario's steps, or one step carrying the outcome of a run check that has none."""
    if scenario.steps:
        return tuple(scenario.steps)
    status: Literal["passed", "failed", "skipped"] = "failed"
    if scenario.status in ("passed", "xpassed"):
        status = "passed"
    elif scenario.status == "skipped":
        status = "skipped"
    return (StepResult("Then", scenario.scenario, status, scenario.duration_s, scenario.line),)


def _tag(tag: str, line: int, flavour: str) -> dict[str, Any]:
    shown: dict[str, Any] = {"name": f"@{tag.lstrip('@')}"}
    if flavour != "jvm":
        shown["line"] = max(line - 1, 1)
    return shown


def _element(run: RunResult, scenario: ScenarioResult, flavour: str) -> dict[str, Any]:
    status, error = _outcome(run, scenario)
    own = _own_steps(scenario)
    steps = [_step(step, scenario, flavour) for step in own]
    carrier = next((s for s, raw in zip(steps, own, strict=True) if raw.status == "failed"), None)
    element: dict[str, Any] = {
        "id": f"{_slug(scenario.feature)};{_slug(scenario.scenario)}",
        "keyword": "Scenario",
        "type": "scenario",
        "name": scenario.scenario,
        "description": "",
        "line": scenario.line,
        "tags": [_tag(tag, scenario.line, flavour) for tag in scenario.tags],
        "steps": steps,
    }
    if error is None:
        return element
    for step, raw in zip(steps, own, strict=True):
        if raw.status == "failed":
            step["result"]["status"] = status
    if carrier is None or scenario.status == "xpassed":
        carrier = {"match": {"location": "ccweb-conformance"}, "result": {"status": status, "duration": 0}}
        if flavour == "js":
            carrier.update(keyword="After", hidden=True)
            steps.append(carrier)
        else:
            element["after"] = [carrier]
    transcript = f"\n\ntranscript:\n{format_transcript(scenario.transcript)}" if scenario.transcript else ""
    carrier["result"]["error_message"] = f"{error}{transcript}"
    return element


def _step(step: StepResult, scenario: ScenarioResult, flavour: str) -> dict[str, Any]:
    status = "skipped" if scenario.status == "skipped" else step.status
    line = step.line or scenario.line
    shown: dict[str, Any] = {
        "keyword": f"{step.keyword.strip()} ",
        "name": step.text,
        "line": line,
        "match": {"location": f"{scenario.feature_file}:{line}"},
        "result": {"status": status, "duration": round(step.duration_s * _NS)},
    }
    rows = [{"cells": list(row)} for row in step.data_table or ()]
    if flavour == "js":
        doc = [{"content": step.doc_string, "line": line + 1}] if step.doc_string is not None else []
        shown["arguments"] = [*doc, *([{"rows": rows}] if rows else [])]
        return shown
    if step.doc_string is not None:
        shown["doc_string"] = {"value": step.doc_string, "line": line + 1, "content_type": ""}
    if rows:
        shown["rows"] = rows
    return shown
