"""How to profile: the settings the resolved options describe (defaults from spec/ccweb_spec/performance.yaml).

The options themselves are rows of the one option table (``options.RunnerOptions``, group
``profile``), so the config file, ``--help`` and validation serve them as every other option.
"""

from __future__ import annotations

from dataclasses import dataclass

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.options import RunnerOptions


@dataclass(frozen=True)
class ProfileSettings:
    """How to profile: sizes, repetitions."""

    sizes: tuple[int, ...]
    repeats: int
    settle: float
    first_calls: int
    floor_calls: int
    phase_seconds: float
    reference: bool


def profile_settings(given: RunnerOptions) -> ProfileSettings:
    """The settings the options describe, an option not given taken from spec/ccweb_spec/performance.yaml;
    UsageError for impossible ones."""
    measurement = ccweb_spec.performance()["measurement"]
    limit = int(measurement["max_size_limit"])
    max_size = measurement["max_size"] if given.max_size is None else given.max_size
    if max_size > limit:
        raise UsageError(f"--max-size {max_size:,} is above the limit of {limit:,} messages")
    if given.sizes is None:
        sizes = tuple(size for size in measurement["sizes"] if size <= max_size) or (max_size,)
    else:
        sizes = given.sizes
        too_large = [size for size in sizes if size > max_size]
        if too_large:
            raise UsageError(
                f"--sizes {too_large[0]:,} is above --max-size {max_size:,}; raise --max-size to profile it"
            )
    return ProfileSettings(
        sizes=sizes,
        repeats=measurement["repeats"] if given.repeats is None else given.repeats,
        settle=measurement["settle_seconds"] if given.settle is None else given.settle,
        first_calls=int(measurement["first_calls"]),
        floor_calls=int(measurement["floor_calls"]),
        phase_seconds=float(measurement["phase_seconds"]),
        reference=not given.no_reference,
    )
