"""How to profile: the settings the resolved options describe (defaults from spec/ccweb_spec/performance.yaml).

The options themselves are rows of the one option table (``options.RunnerOptions``, group
``profile``), so the config file, ``--help`` and validation serve them as every other option.
"""

from __future__ import annotations

from dataclasses import dataclass

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.options import RunnerOptions, spec_defaults


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
    """The settings the options describe; UsageError for impossible ones."""
    options = spec_defaults(given)
    measurement = ccweb_spec.performance()["measurement"]
    limit = int(measurement["max_size_limit"])
    assert options.max_size is not None and options.repeats is not None and options.settle is not None
    if options.max_size > limit:
        raise UsageError(f"--max-size {options.max_size:,} is above the limit of {limit:,} messages")
    if given.sizes is None:
        sizes = tuple(size for size in measurement["sizes"] if size <= options.max_size) or (options.max_size,)
    else:
        sizes = given.sizes
        too_large = [size for size in sizes if size > options.max_size]
        if too_large:
            raise UsageError(
                f"--sizes {too_large[0]:,} is above --max-size {options.max_size:,}; raise --max-size to profile it"
            )
    return ProfileSettings(
        sizes=sizes,
        repeats=options.repeats,
        settle=options.settle,
        first_calls=int(measurement["first_calls"]),
        floor_calls=int(measurement["floor_calls"]),
        phase_seconds=float(measurement["phase_seconds"]),
        reference=not options.no_reference,
    )
