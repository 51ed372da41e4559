"""The advisory budgets of spec/ccweb_spec/performance.yaml, judged against a profile: SHOULD-level warnings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ccweb_spec
from ccweb_conformance.profile.model import Advisory, Growth, ImplementationProfile, SizeResult

Metric = Callable[[SizeResult, Growth | None], float | None]

METRICS: dict[str, Metric] = {
    "first_ms": lambda size, step: size.first_median,
    "repeated_ms": lambda size, step: size.repeated_median,
    "read_fraction": lambda size, step: size.read_fraction,
    "memory_multiple": lambda size, step: size.memory_multiple,
    "first_growth": lambda size, step: None if step is None else step.first_exponent,
    "repeated_growth": lambda size, step: None if step is None else step.repeated_exponent,
}
"""How each metric named in the budgets is read off a size (and the growth step that ends there)."""


def budgets() -> list[dict[str, Any]]:
    """The budgets, in file order."""
    found: list[dict[str, Any]] = ccweb_spec.performance()["budgets"]
    return found


def advisories(profile: ImplementationProfile) -> list[Advisory]:
    """Every budget this implementation missed, at every size it applies to."""
    steps = {step.to_messages: step for step in profile.growth}
    found: list[Advisory] = []
    for budget in budgets():
        metric = METRICS[budget["metric"]]
        for size in profile.sizes:
            if size.messages < budget["from_messages"] or size.failure is not None:
                continue
            value = metric(size, steps.get(size.messages))
            if value is not None and value > budget["limit"]:
                found.append(
                    Advisory(
                        budget["id"],
                        profile.name,
                        size.messages,
                        budget["metric"],
                        value,
                        float(budget["limit"]),
                        " ".join(budget["statement"].split()),
                        " ".join(budget["reason"].split()),
                    )
                )
    return found


def shown(metric: str, value: float) -> str:
    """A metric's value in words: ``115.6 ms``, ``100.0% of the file``, ``25.8x the file``, ``e 1.03``."""
    if metric.endswith("_ms"):
        return f"{value:,.1f} ms"
    if metric == "read_fraction":
        return f"{value:.1%} of the file"
    if metric == "memory_multiple":
        return f"{value:.1f}x the file"
    return f"growth exponent {value:.2f}"


def grouped(found: list[Advisory]) -> list[tuple[Advisory, list[tuple[str, str]]]]:
    """The advisories per budget (file order): the first one, and (implementation, ``value at size, ...``)."""
    result: list[tuple[Advisory, list[tuple[str, str]]]] = []
    for budget in budgets():
        mine = [advisory for advisory in found if advisory.budget == budget["id"]]
        values: dict[str, list[str]] = {}
        for advisory in mine:
            value = f"{shown(advisory.metric, advisory.value)} at {advisory.messages:,} messages"
            values.setdefault(advisory.implementation, []).append(value)
        if mine:
            result.append((mine[0], [(name, ", ".join(said)) for name, said in values.items()]))
    return result
