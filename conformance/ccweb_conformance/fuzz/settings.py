"""The fuzz phase's settings, from the fuzz request and the selection, without importing Hypothesis.

A run that fuzzes nothing (``--fuzz 0``, or a selection) learns so here, and never pays for
Hypothesis's import.
"""

from __future__ import annotations

from dataclasses import dataclass

from ccweb_conformance.fuzz.sweep import sweep_cases
from ccweb_conformance.values import FuzzRequest, Selection

__all__ = [
    "SAFETY_BASE",
    "SAFETY_PER_CALL",
    "SHORT_PHASE_COUNT",
    "SHORT_SHRINK_TIME",
    "SHRINK_TIME",
    "FuzzSettings",
    "safety_bound",
    "settings_for",
]

SAFETY_BASE = 30.0
SAFETY_PER_CALL = 0.25
"""The default safety bound: 30 s and 0.25 s per call (sweep and cases); 3.5 times what a 70 ms server needs."""
SHORT_PHASE_COUNT = 60
"""Generated cases of the short phase that ends every full run (no --fuzz, no selection)."""
SHRINK_TIME = 30.0
"""At most this long (or the safety bound, if longer) is spent shrinking a mismatch of ``--fuzz N``."""
SHORT_SHRINK_TIME = 10.0
"""The short phase shrinks for at most this long."""

@dataclass(frozen=True)
class FuzzSettings:
    """``--fuzz N --seed S --fuzz-time SECONDS``."""

    count: int
    seed: int = 0
    time_limit: float | None = None
    """The safety bound in seconds; None: :func:`safety_bound`. Reaching it fails the phase."""
    shrink_time: float = SHRINK_TIME
    sweep: bool = True
    """Start with the argument sweep (every limit, the maxChars edges) before the generated cases."""

    @property
    def sweep_total(self) -> int:
        """Calls of the argument sweep this phase makes."""
        return len(sweep_cases()) if self.sweep else 0

    @property
    def bound(self) -> float:
        """The safety bound in seconds."""
        return self.time_limit if self.time_limit is not None else safety_bound(self.count + self.sweep_total)


def safety_bound(calls: int) -> float:
    """The default safety bound of a phase of ``calls`` calls (sweep and cases)."""
    return SAFETY_BASE + SAFETY_PER_CALL * calls


def settings_for(request: FuzzRequest, selection: Selection) -> FuzzSettings | None:
    """The phase asked for: ``--fuzz N``, the short default phase, or None (off; a selection without ``--fuzz``)."""
    if request.count == 0 or (request.count is None and selection.narrow):  # a selection: fuzz only when asked
        return None
    if request.count is None:
        return FuzzSettings(SHORT_PHASE_COUNT, request.seed, request.time_limit, SHORT_SHRINK_TIME)
    return FuzzSettings(request.count, request.seed, request.time_limit)
