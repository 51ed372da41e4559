"""Growth between consecutive sizes, and the verdict it leads to: flat, linear in the file, or worse."""

from __future__ import annotations

import itertools
import math
from typing import Any

import ccweb_spec
from ccweb_conformance.profile.model import Growth, ImplementationProfile, SizeResult, Verdict

FLAT, LINEAR, WORSE, UNKNOWN = "flat", "linear in the file", "worse than linear", "not measured"


def _rules() -> dict[str, Any]:
    rules: dict[str, Any] = ccweb_spec.performance()["growth"]
    return rules


def exponent(smaller: float | None, larger: float | None, file_ratio: float, noise_ms: float) -> float | None:
    """e in time ~ size^e from two medians; 0 when the larger one is under the noise level."""
    if smaller is None or larger is None or file_ratio <= 1:
        return None
    if larger < noise_ms:
        return 0.0
    return math.log(max(larger, 1e-6) / max(smaller, 1e-6)) / math.log(file_ratio)


def _ratio(smaller: float | None, larger: float | None) -> float | None:
    if smaller is None or larger is None or smaller <= 0:
        return None
    return larger / smaller


def growth_steps(sizes: list[SizeResult]) -> list[Growth]:
    """The growth from each measured size to the next."""
    noise = float(_rules()["noise_ms"])
    measured = [s for s in sizes if s.first_median is not None or s.repeated_median is not None]
    steps: list[Growth] = []
    for small, large in itertools.pairwise(measured):
        file_ratio = large.file_bytes / small.file_bytes
        steps.append(
            Growth(
                small.messages,
                large.messages,
                file_ratio,
                _ratio(small.first_median, large.first_median),
                _ratio(small.repeated_median, large.repeated_median),
                exponent(small.first_median, large.first_median, file_ratio, noise),
                exponent(small.repeated_median, large.repeated_median, file_ratio, noise),
            )
        )
    return steps


def classify(exponents: list[float | None]) -> str:
    """The class of a curve from its exponents: the steepest step decides."""
    known = [e for e in exponents if e is not None]
    if not known:
        return UNKNOWN
    rules = _rules()
    steepest = max(known)
    if steepest <= rules["flat_exponent"]:
        return FLAT
    return LINEAR if steepest <= rules["linear_exponent"] else WORSE


def verdict(profile: ImplementationProfile) -> Verdict:
    """First calls should be at most linear in the file, repeated calls flat."""
    first = classify([g.first_exponent for g in profile.growth])
    repeated = classify([g.repeated_exponent for g in profile.growth])
    if UNKNOWN in (first, repeated):
        return Verdict(first, repeated, "one size only: no growth to judge", True)
    problems = []
    if first == WORSE:
        problems.append("first calls grow faster than the file")
    if repeated != FLAT:
        problems.append(f"repeated calls grow {'with' if repeated == LINEAR else 'faster than'} the file (re-reads it)")
    if not problems:
        return Verdict(first, repeated, f"first call {first}, repeated calls {repeated}", True)
    return Verdict(first, repeated, "worse: " + "; ".join(problems), False)


def judge(profile: ImplementationProfile) -> None:
    """Fill in the growth steps and the verdict."""
    profile.growth = growth_steps(profile.sizes)
    profile.verdict = verdict(profile)
