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

The message goes in the failing step's ``error_message``; the transcript is attached to it as
a ``text/plain`` embedding.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

from ccweb_conformance.reports.common import format_transcript, problem
from ccweb_conformance.reports.model import RunResult, ScenarioResult, StepResult

__all__ = ["build_cucumber", "write_cucumber"]

_NS = 1_000_000_000


def build_cucumber(run: RunResult) -> list[dict[str, Any]]:
    """The report as JSON-ready data: a list of features."""
    features: dict[str, list[ScenarioResult]] = {}
    for scenario in run.scenarios:
        features.setdefault(scenario.feature_file, []).append(scenario)
    return [
        {
            "uri": uri,
            "id": _slug(scenarios[0].feature),
            "keyword": "Feature",
            "name": scenarios[0].feature,
            "description": "",
            "line": 1,
            "tags": [],
            "elements": [_element(run, s) for s in scenarios],
        }
        for uri, scenarios in features.items()
    ]


def write_cucumber(run: RunResult, path: Path) -> None:
    """Write the Cucumber JSON report (UTF-8)."""
    text = json.dumps(build_cucumber(run), ensure_ascii=False, indent=2)
    Path(path).write_text(text + "\n", encoding="utf-8", errors="backslashreplace")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _outcome(run: RunResult, scenario: ScenarioResult) -> tuple[str, str | None]:
    """The status a failing step (or hook) shows, and the error message for it."""
    text = problem(scenario)
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


def _element(run: RunResult, scenario: ScenarioResult) -> dict[str, Any]:
    status, error = _outcome(run, scenario)
    steps = [_step(step, scenario) for step in scenario.steps]
    carrier = next((s for s, raw in zip(steps, scenario.steps, strict=True) if raw.status == "failed"), None)
    element: dict[str, Any] = {
        "id": f"{_slug(scenario.feature)};{_slug(scenario.scenario)}",
        "keyword": "Scenario",
        "type": "scenario",
        "name": scenario.scenario,
        "description": "",
        "line": scenario.line,
        "tags": [{"name": f"@{tag.lstrip('@')}"} for tag in scenario.tags],
        "steps": steps,
    }
    if error is None:
        return element
    for step, raw in zip(steps, scenario.steps, strict=True):
        if raw.status == "failed":
            step["result"]["status"] = status
    if carrier is None or scenario.status == "xpassed":
        carrier = {"match": {"location": "ccweb-conformance"}, "result": {"status": status, "duration": 0}}
        element["after"] = [carrier]
    carrier["result"]["error_message"] = error
    if scenario.transcript:
        data = base64.b64encode(format_transcript(scenario.transcript).encode("utf-8", "backslashreplace"))
        carrier["embeddings"] = [{"mime_type": "text/plain", "data": data.decode("ascii"), "name": "transcript"}]
    return element


def _step(step: StepResult, scenario: ScenarioResult) -> dict[str, Any]:
    status = "skipped" if scenario.status == "skipped" else step.status
    return {
        "keyword": f"{step.keyword.strip()} ",
        "name": step.text,
        "result": {"status": status, "duration": round(step.duration_s * _NS)},
    }
