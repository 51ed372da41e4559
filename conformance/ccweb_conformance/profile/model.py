"""What a profile measured: per implementation and conversation size, plus what was made of it."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field


def median(samples: list[float]) -> float | None:
    """The median, or None without samples."""
    return statistics.median(samples) if samples else None


def p95(samples: list[float]) -> float | None:
    """The 95th percentile (nearest rank), or None without samples."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


@dataclass(frozen=True)
class WrongAnswer:
    """A call whose result differs from the reference core's."""

    phase: str
    """warm-up, first (after a change) or repeated (unchanged file)."""
    call: int
    """1-based, within the phase."""
    revision: int
    """Which revision of the conversation the file held (see profile.conversation)."""
    differences: tuple[str, ...]


@dataclass
class SizeResult:
    """One implementation at one conversation size."""

    messages: int
    file_bytes: int
    first_ms: list[float] = field(default_factory=list)
    """First calls after a change of the file."""
    repeated_ms: list[float] = field(default_factory=list)
    """Calls on the unchanged file."""
    floor_ms: list[float] = field(default_factory=list)
    """tools/list round trips to the same server: what any call costs at least."""
    idle_bytes: int | None = None
    """Resident memory after a call on a tiny conversation, before the large file."""
    peak_bytes: int | None = None
    """Resident memory high-water mark at the end."""
    read_per_call: float | None = None
    """Bytes the server read per repeated call (rchar: files, pipes and sockets)."""
    storage_per_call: float | None = None
    """Bytes fetched from storage per repeated call (0 when the page cache served them)."""
    calls_checked: int = 0
    wrong: list[WrongAnswer] = field(default_factory=list)
    failure: str | None = None
    """Why the implementation stopped answering at this size, if it did."""

    @property
    def first_median(self) -> float | None:
        """Median first call, ms."""
        return median(self.first_ms)

    @property
    def repeated_median(self) -> float | None:
        """Median repeated call, ms."""
        return median(self.repeated_ms)

    @property
    def floor_median(self) -> float | None:
        """Median floor round trip, ms."""
        return median(self.floor_ms)

    @property
    def read_fraction(self) -> float | None:
        """Bytes read per repeated call over the file's size."""
        return None if self.read_per_call is None else self.read_per_call / self.file_bytes

    @property
    def memory_multiple(self) -> float | None:
        """(peak - idle) resident memory over the file's size."""
        if self.peak_bytes is None or self.idle_bytes is None:
            return None
        return max(self.peak_bytes - self.idle_bytes, 0) / self.file_bytes


@dataclass(frozen=True)
class Growth:
    """From one size to the next: how much the file and the medians grew."""

    from_messages: int
    to_messages: int
    file_ratio: float
    first_ratio: float | None
    repeated_ratio: float | None
    first_exponent: float | None
    """e in time ~ size^e between the two sizes (0 when both are under the noise level)."""
    repeated_exponent: float | None


@dataclass(frozen=True)
class Verdict:
    """How an implementation's cost grows: per curve flat, linear or worse than linear."""

    first: str
    repeated: str
    summary: str
    good: bool


@dataclass
class ImplementationProfile:
    """Everything measured for one implementation."""

    name: str
    description: str
    transport: str
    is_reference: bool
    sampled: bool = False
    """True when the bytes-read figures were available (Linux; psutil counts no reads on macOS)."""
    sizes: list[SizeResult] = field(default_factory=list)
    growth: list[Growth] = field(default_factory=list)
    verdict: Verdict | None = None

    @property
    def wrong(self) -> list[tuple[SizeResult, WrongAnswer]]:
        """Every wrong answer, with its size."""
        return [(size, wrong) for size in self.sizes for wrong in size.wrong]

    @property
    def failures(self) -> list[SizeResult]:
        """Sizes at which it stopped answering."""
        return [size for size in self.sizes if size.failure is not None]


@dataclass(frozen=True)
class Advisory:
    """A missed performance budget: a SHOULD-level warning, never a failure."""

    budget: str
    implementation: str
    messages: int
    metric: str
    value: float
    limit: float
    statement: str
    reason: str


@dataclass
class Profile:
    """A whole profile run."""

    kit_version: str
    spec_version: str
    started_at: str
    sizes: tuple[int, ...]
    implementations: list[ImplementationProfile] = field(default_factory=list)
    advisories: list[Advisory] = field(default_factory=list)
    duration_s: float = 0.0
    machine: dict[str, object] = field(default_factory=dict)
    config_file: str | None = None
    """The config file whose values the profile took, or None."""

    @property
    def wrong(self) -> bool:
        """True when some call answered wrongly or an implementation stopped answering."""
        return any(impl.wrong or impl.failures for impl in self.implementations)
