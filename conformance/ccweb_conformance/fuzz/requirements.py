"""Which requirements a difference touches, for the fuzz phase's scenario result."""

from __future__ import annotations

from collections.abc import Iterable

import ccweb_spec
from ccweb_conformance.checks.attribution import field_requirements

FUZZED_GROUPS = ("SEL", "BUD", "UNI", "RES")
"""What a passing fuzz phase vouches for."""


def fuzzed_requirements() -> tuple[str, ...]:
    """Every SEL, BUD, UNI and RES requirement, in spec order."""
    return tuple(r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in FUZZED_GROUPS)


def touched_requirements(differences: Iterable[str]) -> tuple[str, ...]:
    """The requirements the differences (``$.items[0].content: ...``) point at, in spec order; all fuzzed ones
    when they point at none."""
    return field_requirements(differences) or fuzzed_requirements()
