"""The runner's own JSON report: documented by ``schemas/report.schema.json``, versioned.

``formatVersion`` follows semantic versioning: a new optional field is a minor change; a
removed or renamed field, or a changed meaning, is a major one.

No string in the report holds a lone surrogate: strict JSON parsers (jq 1.6, Go, Rust's
serde_json) reject a lone ``\\udXXX`` escape, so each one is written as U+FFFD. An exchange
in which one was replaced keeps the text received as ``receivedTextBase64`` (see the schema).
Nor does it hold a bare ``NaN`` or ``Infinity``, which RFC 8259 has no room for: a server's non-finite
number is written as its spelling, a string (``"NaN"``), and the exchange names where in ``nonFiniteNumbers``.
"""

from __future__ import annotations

import base64
from typing import Any

from ccweb_conformance.jsontext import finite_only, indented, replace_lone_surrogates, strict_json
from ccweb_conformance.reports.failure_block import headline, scenario_block, scenario_hint
from ccweb_conformance.reports.failure_groups import failure_groups
from ccweb_conformance.reports.model import REPORT_FORMAT_VERSION, Rerun, RunResult, ScenarioResult
from ccweb_conformance.reports.neutral import json_escapes

__all__ = ["build_json", "render_json"]


def _exchange(entry: dict[str, Any], received_text: str) -> dict[str, Any]:
    if strict_json(entry):
        return entry  # nearly every exchange: one pass of the C encoder instead of one per kind of problem
    cleaned: dict[str, Any] = replace_lone_surrogates(entry)
    if cleaned != entry:
        raw = received_text.encode("utf-8", errors="surrogatepass")
        cleaned["receivedTextBase64"] = base64.b64encode(raw).decode("ascii")
    cleaned, spelt = finite_only(cleaned)
    if spelt:
        cleaned["nonFiniteNumbers"] = spelt
    return cleaned


def build_json(run: RunResult) -> dict[str, Any]:
    """The report as a JSON-ready dict (see ``report.schema.json``), free of lone surrogates and of non-finite
    numbers (RFC 8259 JSON)."""
    # The transcripts (the bulk of a report) apart: each exchange is made strict on its own.
    report: dict[str, Any] = finite_only(replace_lone_surrogates(_build(run)))[0]
    for built, scenario in zip(report["scenarios"], run.scenarios, strict=True):
        built["transcript"] = [_exchange(e.to_json(), e.received_text) for e in scenario.transcript]
    return report


def _build(run: RunResult) -> dict[str, Any]:
    groups = failure_groups([s for s in run.scenarios if _diagnosis(s, None) is not None])  # those with a diagnosis
    group_of = {id(s): g.number for g in groups for s in g.scenarios}
    return {
        "formatVersion": REPORT_FORMAT_VERSION,
        "kitVersion": run.kit_version,
        "specVersion": run.spec_version,
        "target": run.target,
        "transport": run.transport,
        "protocolVersion": run.protocol_version,
        "protocolVersions": list(run.eras),
        "oneEraReason": run.one_era_reason,
        "startedAt": run.started_at,
        "durationSeconds": round(run.duration_s, 3),
        "strict": run.strict,
        "outcome": run.verdict,
        "selection": run.selection,
        "interrupted": run.interrupted,
        "stopped": run.stopped,
        "leftoverProcesses": list(run.leftover_processes),
        "processes": run.processes,
        "waits": dict(run.waits),
        "configFile": run.config_file,
        "expectedFailuresFile": run.expected_failures_file,
        "staleExpectedFailures": list(run.stale_expected_failures),
        "failureGroups": [
            {
                "group": g.number,
                "status": g.first.status,
                "headline": headline(g.first),
                "hint": scenario_hint(g.first),
                "scenarios": [s.nodeid for s in g.scenarios],
                "rerun": _rerun(g.first.rerun),
            }
            for g in groups
        ],
        "counts": {"total": len(run.scenarios), **run.counts()},
        "requirements": [
            {
                "id": r.requirement.id,
                "level": r.requirement.level,
                "group": r.requirement.group,
                "statement": r.requirement.statement,
                "statementZh": r.requirement.statement_zh,
                "status": r.status,
                "scenarios": [s.nodeid for s in r.scenarios],
            }
            for r in run.requirement_results()
        ],
        "scenarios": [_scenario(s, group_of.get(id(s))) for s in run.scenarios],
    }


def _rerun(rerun: Rerun | None) -> dict[str, Any] | None:
    """A group's first scenario run again alone (None when it was not tried)."""
    if rerun is None:
        return None
    return {
        "outcome": rerun.outcome,
        "server": rerun.server,
        "status": rerun.status,
        "failedRequirements": list(rerun.failed_requirements),
        "check": rerun.check,
        "notRerun": rerun.not_rerun,
        "why": rerun.why,
        "durationSeconds": round(rerun.duration_s, 3),
    }


def _scenario(scenario: ScenarioResult, group: int | None) -> dict[str, Any]:
    return {
        "id": scenario.nodeid,
        "feature": scenario.feature,
        "file": scenario.feature_file,
        "name": scenario.scenario,
        "line": scenario.line,
        "tags": list(scenario.tags),
        "requirements": list(scenario.requirements),
        "failedRequirements": list(scenario.failed_requirements()),
        "level": scenario.level,
        "status": scenario.status,
        "message": scenario.message,
        "durationSeconds": round(scenario.duration_s, 3),
        "expectedFailureReason": scenario.expected_failure_reason,
        "steps": [
            {"keyword": s.keyword, "text": s.text, "status": s.status, "durationSeconds": round(s.duration_s, 3)}
            for s in scenario.steps
        ],
        "transcript": [],  # in its place among the keys; build_json writes each exchange (the bulk of a report)
        "diagnosis": _diagnosis(scenario, group),
    }


def _diagnosis(scenario: ScenarioResult, group: int | None) -> dict[str, Any] | None:
    """What the console's failure block says, for CI tools that read the JSON: one line, the block, the hint,
    the command that reruns the scenario alone (None when no ``-k`` selects it alone) and its group's number."""
    if scenario.detail is None or scenario.status not in ("failed", "warning"):
        return None
    diagnosis = {
        "headline": headline(scenario),
        "block": scenario_block(scenario),
        "hint": scenario_hint(scenario),
        "reproducer": scenario.reproducer,
    }
    return diagnosis if group is None else {**diagnosis, "group": group}


def render_json(run: RunResult) -> str:
    """The report as JSON text (no lone surrogate: each became U+FFFD, see the module docstring); the server's text
    whole, with no line a CI runner acts on (:func:`~ccweb_conformance.reports.neutral.json_escapes`)."""
    return json_escapes(indented(build_json(run), ensure_ascii=False, allow_nan=False)) + "\n"
