"""The suite's cases as language-neutral data (``ccweb-conformance export``), validated by its schema.

The document holds the function-level cases (replayable without MCP) and names the MCP-level
scenarios with the reason each needs an MCP client. ``CASES.md`` (``ccweb_conformance/harness/``)
tells a harness how to run it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import ccweb_spec
from ccweb_conformance import kit_version

FORMAT_VERSION = 2
SCHEMA_ID = "https://ccweb.dev/contracts/list-user-inputs/1/cases.schema.json"
SESSIONS_FOLDER = "sessions"
"""The sessions directory's path inside a case's root folder."""


@dataclass
class RecordedCase:
    """One scenario as recorded: its steps when it is replayable, else why it is MCP-level."""

    id: str
    feature: str
    scenario: str
    requirements: tuple[str, ...]
    steps: list[dict[str, Any]]
    reason: str | None


def export_document(cases: list[RecordedCase]) -> dict[str, Any]:
    """The export: versions, counts per group, the function-level cases and the MCP-level scenarios."""
    function_level = [c for c in cases if c.reason is None]
    mcp_level = [c for c in cases if c.reason is not None]
    return {
        "$schema": SCHEMA_ID,
        "format": FORMAT_VERSION,
        "tool": ccweb_spec.TOOL_NAME,
        "contractVersion": ccweb_spec.contract_version(),
        "kitVersion": kit_version(),
        "sessionsDir": SESSIONS_FOLDER,
        "counts": {
            "functionLevel": len(function_level),
            "mcpLevel": len(mcp_level),
            "calls": sum(1 for c in function_level for s in c.steps if s["op"] == "call"),
            "byFeature": _by_feature(function_level, mcp_level),
        },
        "cases": [
            {"id": c.id, "feature": c.feature, "scenario": c.scenario, "requirements": list(c.requirements),
             "steps": c.steps}
            for c in function_level
        ],
        "runnerOnly": [
            {"requirement": requirement, "what": what}
            for requirement, what in sorted(ccweb_spec.case_levels().runner_only.items())
        ],
        "mcpLevel": [
            {"id": c.id, "feature": c.feature, "scenario": c.scenario, "requirements": list(c.requirements),
             "reason": c.reason}
            for c in mcp_level
        ],
    }


def _by_feature(function_level: list[RecordedCase], mcp_level: list[RecordedCase]) -> dict[str, dict[str, int]]:
    functions, mcp = Counter(c.feature for c in function_level), Counter(c.feature for c in mcp_level)
    return {
        feature: {"functionLevel": functions[feature], "mcpLevel": mcp[feature]}
        for feature in sorted(functions.keys() | mcp.keys())
    }
