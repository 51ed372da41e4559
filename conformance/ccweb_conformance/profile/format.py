"""Numbers and tables as the profile's reports show them (shared by console and Markdown)."""

from __future__ import annotations

from pathlib import Path

import ccweb_spec
from ccweb_conformance.profile.model import Growth, Profile, SizeResult, p95


def ms(value: float | None, digits: int = 1) -> str:
    """Milliseconds, or a dash."""
    return "-" if value is None else f"{value:,.{digits}f}"


def with_p95(samples: list[float], median: float | None) -> str:
    """``median (p95)`` in ms."""
    if median is None:
        return "-"
    digits = 2 if median < 10 else 1
    return f"{median:,.{digits}f} ({ms(p95(samples), digits)})"


def byte_size(value: float | None) -> str:
    """Bytes in B, KB or MB."""
    if value is None:
        return "-"
    if value < 1000:
        return f"{value:,.0f} B"
    if value < 1_000_000:
        return f"{value / 1000:,.1f} KB"
    return f"{value / 1e6:,.1f} MB"


def multiple(value: float | None) -> str:
    """``2.3x``, or a dash."""
    return "-" if value is None else f"{value:.1f}x"


def checked(size: SizeResult) -> str:
    """How many calls were checked and how they came out."""
    if size.failure is not None:
        return "STOPPED"
    if size.wrong:
        return f"WRONG ({size.calls_checked} checked)"
    return f"{size.calls_checked} ok"


def size_rows(profile: Profile) -> list[list[str]]:
    """The main table's rows: per size, one per implementation measured at it."""
    return [
        [
            f"{size.messages:,}",
            f"{size.file_bytes / 1e6:,.2f}",
            i.name,
            with_p95(size.first_ms, size.first_median),
            with_p95(size.repeated_ms, size.repeated_median),
            ms(size.floor_median, 2),
            byte_size(size.read_per_call),
            byte_size(size.peak_bytes),
            multiple(size.memory_multiple),
            checked(size),
        ]
        for index in range(len(profile.sizes))
        for i in profile.implementations
        for size in i.sizes[index : index + 1]
    ]


SIZE_HEADERS: list[str] = ccweb_spec.yaml_data((Path(__file__).parent / "format.yaml").read_text(encoding="utf-8"))
"""The main table's column headings (``format.yaml`` beside this module)."""


def ratio(value: float | None, exponent: float | None) -> str:
    """``x9.8 (e 0.99)``: how much a median grew, and the exponent."""
    if value is None:
        return "-"
    return f"x{value:,.1f}" + ("" if exponent is None else f" (e {exponent:.2f})")


def growth_cells(step: Growth | None) -> list[str]:
    """First and repeated growth of one step."""
    if step is None:
        return ["-", "-"]
    return [ratio(step.first_ratio, step.first_exponent), ratio(step.repeated_ratio, step.repeated_exponent)]


def table(headers: list[str], rows: list[list[str]], left: set[int]) -> list[str]:
    """Aligned plain-text columns; the columns in ``left`` are left-aligned, the rest right-aligned."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return [line(headers).rstrip(), *(line(row).rstrip() for row in rows)]
