"""Which requirements a difference touches, for the fuzz phase's scenario result."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.attribution import (
    ORDER_REQUIREMENT,
    field_requirements,
    only_reordered,
    result_requirements,
    success_requirements,
)
from ccweb_conformance.checks.mistakes import mistaken_requirement
from ccweb_conformance.fuzz.execute import Mismatch

STORED_WITHOUT_MESSAGES = ("null messages", "no messages")
"""Storages whose file holds no messages the contract reads (the case's messages are elsewhere or unused)."""

FUZZED_GROUPS = ("SEL", "BUD", "UNI", "RES")
"""What a passing fuzz phase vouches for."""


def fuzzed_requirements() -> tuple[str, ...]:
    """Every SEL, BUD, UNI and RES requirement, in spec order."""
    return tuple(r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in FUZZED_GROUPS)


def touched_requirements(differences: Iterable[str]) -> tuple[str, ...]:
    """The requirements the differences (``$.items[0].content: ...``) point at, in spec order; all fuzzed ones
    when they point at none."""
    return field_requirements(differences) or fuzzed_requirements()


def _mistake(mismatch: Mismatch, wanted: dict[str, Any], got: dict[str, Any]) -> str | None:
    """The one rule a catalogued mistake explains the server's success by (``checks/mistakes.py``), or None."""
    stored = [] if mismatch.case.storage in STORED_WITHOUT_MESSAGES else mismatch.case.messages
    limit, max_chars = wanted.get("requestedLimit"), wanted.get("maxChars")
    if not isinstance(limit, int) or not isinstance(max_chars, int):
        return None
    return mistaken_requirement(got, mismatch.conversation_id, stored, limit, max_chars)


def mismatch_requirements(mismatch: Mismatch) -> tuple[str, ...]:
    """Whom a difference is charged to, as the scenarios charge it: an error where the reference answered a
    success by ``success_requirements`` (the file the reference read is valid), the exact items in another
    order to SEL-7, two successes field by field (``result_requirements``: a count that agrees with the
    server's own items, and the items themselves, to the selection or budget rule that chose them), else the
    differing fields' requirements."""
    expected, actual = mismatch.expected, mismatch.actual
    wanted = expected.get("result") if isinstance(expected, dict) else None
    got = actual.get("result") if isinstance(actual, dict) else None
    if only_reordered(wanted, got):
        return (ORDER_REQUIREMENT,)
    if isinstance(wanted, dict) and wanted.get("ok") is True and isinstance(got, dict) and got.get("ok") is False:
        charged = success_requirements(got, mismatch.case.arguments(mismatch.conversation_id), None)
        if charged:
            return charged
    if isinstance(wanted, dict) and wanted.get("ok") is True and isinstance(got, dict) and got.get("ok") is True:
        if mistake := _mistake(mismatch, wanted, got):
            return (mistake,)
        if charged := result_requirements(wanted, got, mismatch.differences, mismatch.case.messages):
            return charged
    return touched_requirements(mismatch.differences)
