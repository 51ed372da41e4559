"""Where a result differs from what the contract expects, as structured differences.

The same walk as :func:`~ccweb_conformance.checks.outcome.contract_differences` (extra
object members are allowed, D-5), but each difference keeps its values, so the console can
show them with code points and the hints can compare them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ccweb_conformance.checks.outcome import json_equal

__all__ = ["MISSING", "Difference", "differences"]

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""Stands for a member that is absent from the actual object."""


@dataclass(frozen=True)
class Difference:
    """One place where the actual value is not the expected one."""

    path: str
    """JSONPath-like, ``$[0].contentChars``."""
    expected: Any
    actual: Any
    """The actual value, or :data:`MISSING`."""
    shape: bool = False
    """True when the lengths or kinds differ (a list of 2 where 3 were expected)."""


def differences(expected: Any, actual: Any, path: str = "$") -> list[Difference]:
    """Every difference, in document order."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [Difference(path, expected, actual, shape=True)]
        found: list[Difference] = []
        for key, value in expected.items():
            if key not in actual:
                found.append(Difference(f"{path}.{key}", value, MISSING))
            else:
                found.extend(differences(value, actual[key], f"{path}.{key}"))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [Difference(path, expected, actual, shape=True)]
        return [
            d for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for d in differences(e, a, f"{path}[{i}]")
        ]
    return [] if json_equal(expected, actual) else [Difference(path, expected, actual)]
