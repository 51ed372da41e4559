"""The profile as Markdown for a CI step summary, with Mermaid ``xychart-beta`` charts of latency against size."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.profile.budgets import grouped, shown
from ccweb_conformance.profile.console import growth_table, wrong_lines
from ccweb_conformance.profile.format import SIZE_HEADERS, size_row
from ccweb_conformance.profile.json_report import write_text
from ccweb_conformance.profile.model import Profile, SizeResult
from ccweb_conformance.reports import markdown_text

CHARTS = (
    ("First call after a change", "first_median"),
    ("Repeated call on an unchanged file", "repeated_median"),
)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    return markdown_text.table(headers, rows)


def _value(size: SizeResult | None, attribute: str) -> float:
    value = None if size is None else getattr(size, attribute)
    return 0.0 if value is None else round(float(value), 3)


def mermaid_chart(profile: Profile, title: str, attribute: str) -> list[str]:
    """A ``xychart-beta`` block: message counts on the x axis (evenly spaced), median ms on the y axis."""
    labels = ", ".join(f'"{size:,}"' for size in profile.sizes)
    series = []
    for implementation in profile.implementations:
        by_size = {s.messages: s for s in implementation.sizes}
        series.append([_value(by_size.get(size), attribute) for size in profile.sizes])
    top = max((v for values in series for v in values), default=1.0) * 1.1 or 1.0
    lines = [
        "```mermaid",
        "xychart-beta",
        f'    title "{title} (median ms)"',
        f'    x-axis "messages" [{labels}]',
        f'    y-axis "ms" 0 --> {top:.3f}',
    ]
    lines += [f"    line [{', '.join(f'{v:g}' for v in values)}]" for values in series]
    return [*lines, "```"]


def render_markdown(profile: Profile) -> str:
    """The Markdown summary."""
    names = ", ".join(f"`{i.name}` ({i.description})" for i in profile.implementations)
    lines = [
        "## ccweb_list_user_inputs performance profile",
        "",
        f"{names}; {len(profile.sizes)} sizes in {profile.duration_s:.1f} s.",
        "",
        *_table(
            SIZE_HEADERS,
            [
                size_row(i.name, size)
                for index in range(len(profile.sizes))
                for i in profile.implementations
                for size in i.sizes[index : index + 1]
            ],
        ),
    ]
    headers, rows = growth_table(profile)
    if rows:
        lines += ["", "Growth from the previous size (median ratio; e: exponent in time ~ size^e):", ""]
        lines += _table(headers, rows)
    lines += ["", "**Verdict**", ""]
    lines += [f"- `{i.name}`: {i.verdict.summary if i.verdict else '-'}" for i in profile.implementations]
    lines += ["", f"**Advisory warnings** (SHOULD, never a failed run): {len(profile.advisories)}", ""]
    for advisory, values in grouped(profile.advisories):
        limit = shown(advisory.metric, advisory.limit)
        lines.append(f"- **{advisory.budget}** {advisory.statement} (limit {limit}) Why: {advisory.reason}")
        lines += [f"  - `{name}`: {value}" for name, value in values]
    wrong = wrong_lines(profile)
    if wrong:
        lines += ["", "**Wrong answers** (differ from the reference core):", "", "```", *wrong, "```"]
    else:
        checked = sum(s.calls_checked for i in profile.implementations for s in i.sizes)
        lines += ["", f"**Correctness**: all {checked:,} calls answered as the reference core does."]
    order = ", ".join(f"{n}. `{i.name}`" for n, i in enumerate(profile.implementations, 1))
    lines += ["", f"Lines in the charts, in order: {order}.", ""]
    for title, attribute in CHARTS:
        lines += [*mermaid_chart(profile, title, attribute), ""]
    return "\n".join(lines)


def write_profile_markdown(profile: Profile, path: Path) -> None:
    """Write the Markdown summary to ``path``."""
    write_text(path, render_markdown(profile))
