"""``ccweb-conformance list``: requirements and the scenarios that prove them, as text or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import ccweb_spec
from ccweb_conformance.reports.model import ScenarioRef

__all__ = ["build_listing", "render_listing", "render_listing_json"]


def build_listing(scenarios: Sequence[ScenarioRef], *, selected: bool) -> list[dict[str, Any]]:
    """Requirements in spec order with their scenarios; with a selection, only those it reaches."""
    listing = []
    for requirement in ccweb_spec.requirements():
        if requirement.level == "WITHDRAWN":
            continue
        proving = [s for s in scenarios if requirement.id in {t.lstrip("@") for t in s.tags}]
        if selected and not proving:
            continue
        listing.append(
            {
                "id": requirement.id,
                "level": requirement.level,
                "group": requirement.group,
                "statement": requirement.statement,
                "criterion": requirement.group if requirement.group.startswith("AC-") else None,
                "scenarios": [
                    {
                        "id": f"{s.feature_file}::{s.name}",
                        "file": s.feature_file,
                        "name": s.name,
                        "examples": s.examples,
                    }
                    for s in proving
                ],
            }
        )
    return listing


def render_listing(listing: list[dict[str, Any]]) -> str:
    """The listing as indented text (no trailing newline)."""
    lines: list[str] = []
    for entry in listing:
        lines.append(f"{entry['id']:<9} {entry['level']:<6} {entry['statement']}")
        for scenario in entry["scenarios"]:
            rows = f" ({scenario['examples']} examples)" if scenario["examples"] else ""
            lines.append(f"    {scenario['id']}{rows}")
    count = sum(len(e["scenarios"]) for e in listing)
    lines.append(f"{len(listing)} requirements, {count} scenario entries")
    return "\n".join(lines)


def render_listing_json(listing: list[dict[str, Any]]) -> str:
    """The listing as JSON text (``list --json FILE``; ``reports/output.py`` places it, ``-`` on stdout)."""
    return json.dumps({"requirements": listing}, ensure_ascii=False, indent=2) + "\n"
