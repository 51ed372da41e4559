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
    return None if smaller is None or larger is None or smaller <= 0 else larger / smaller


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


def rereads(profile: ImplementationProfile) -> SizeResult | None:
    """The largest size at which a repeated call read the file again (PERF-3's limit and sizes), if any.

    A server that re-reads the whole file on every call is linear in the file whatever its
    times say: at small sizes the re-read hides under the noise level.
    """
    budget = next((b for b in ccweb_spec.performance()["budgets"] if b["metric"] == "read_fraction"), None)
    if budget is None:
        return None
    found = [
        size
        for size in profile.sizes
        if size.messages >= budget["from_messages"]
        and size.read_fraction is not None
        and size.read_fraction > budget["limit"]
    ]
    return found[-1] if found else None


def _why_repeated_grow(profile: ImplementationProfile) -> str:
    """Re-reads, unless the bytes read per call say otherwise (then: work per call, or a busy machine)."""
    read = [s.read_per_call for s in profile.sizes if s.read_per_call is not None]
    if not profile.sampled or not read or rereads(profile) is not None:
        return "re-reads it"
    return (
        f"though it reads at most {max(read):,.0f} B per call: work on the whole conversation per call, "
        "or a busy machine"
    )


def under_noise(profile: ImplementationProfile) -> bool:
    """True when every median at the largest measured size is under the noise level: too small to tell."""
    measured = [s for s in profile.sizes if s.first_median is not None or s.repeated_median is not None]
    if not measured:
        return False
    largest = measured[-1]
    medians = [m for m in (largest.first_median, largest.repeated_median) if m is not None]
    return max(medians) < float(_rules()["noise_ms"])


def verdict(profile: ImplementationProfile) -> Verdict:
    """First calls should be at most linear in the file, repeated calls flat (in time and in bytes read)."""
    first = classify([g.first_exponent for g in profile.growth])
    repeated = classify([g.repeated_exponent for g in profile.growth])
    if UNKNOWN in (first, repeated):
        return Verdict(first, repeated, "one size only: no growth to judge", True)
    problems = []
    if first == WORSE:
        problems.append("first calls grow faster than the file")
    reread = rereads(profile)
    if repeated == FLAT and reread is not None:
        repeated = LINEAR
        problems.append(
            f"repeated calls re-read the file ({reread.read_fraction:.0%} of it per call at {reread.messages:,} "
            "messages), though their times do not show it at these sizes"
        )
    elif repeated != FLAT:
        how = "with" if repeated == LINEAR else "faster than"
        problems.append(f"repeated calls grow {how} the file ({_why_repeated_grow(profile)})")
    if not problems:
        summary = f"first call {first}, repeated calls {repeated}"
        if under_noise(profile):
            noise = float(_rules()["noise_ms"])
            summary += f" (every median under the {noise:g} ms noise level: larger sizes tell flat from linear)"
        return Verdict(first, repeated, summary, True)
    return Verdict(first, repeated, "worse: " + "; ".join(problems), False)


def judge(profile: ImplementationProfile) -> None:
    """Fill in the growth steps and the verdict."""
    profile.growth = growth_steps(profile.sizes)
    profile.verdict = verdict(profile)
