"""The profile as Markdown for a CI step summary, with Mermaid ``xychart-beta`` charts of latency against size.

Mermaid's charts have no log axis: the y values are log10 of the median ms (the axis title says
how to read them), the sizes are evenly spaced categories (decades when the sizes are). Each
line is named (Mermaid shows a legend where it can) and coloured as in the SVG, and the
Markdown names the colours too, for renderers without a legend.
"""

from __future__ import annotations

import math

from ccweb_conformance.profile.budgets import grouped, shown
from ccweb_conformance.profile.console import growth_table, wrong_lines
from ccweb_conformance.profile.format import SIZE_HEADERS, size_rows
from ccweb_conformance.profile.model import Profile, SizeResult
from ccweb_conformance.profile.svg import BUDGET_COLOR, REFERENCE_COLOR, noise_ms, series_colors, time_budgets
from ccweb_conformance.reports import markdown_text

CHARTS = (
    ("First call after a change", "first_median", "first_ms"),
    ("Repeated call on an unchanged file", "repeated_median", "repeated_ms"),
)
"""Title, the median it plots, the budget metric drawn beside it."""
NOISE_COLOR = "#b0b0b0"
COLOR_NAMES = {"#1f77b4": "blue", "#d62728": "bright red", "#2ca02c": "green", "#9467bd": "purple", "#ff7f0e": "orange"}
COLOR_NAMES |= {REFERENCE_COLOR: "grey", BUDGET_COLOR: "red", NOISE_COLOR: "light grey"}


def _value(size: SizeResult | None, attribute: str) -> float | None:
    value = None if size is None else getattr(size, attribute)
    return None if value is None else max(float(value), 0.001)


def _log(value: float) -> str:
    return f"{math.log10(value):.3f}".rstrip("0").rstrip(".")


def mermaid_chart(profile: Profile, title: str, attribute: str, metric: str) -> list[str]:
    """A ``xychart-beta`` block: sizes on the x axis, log10 of the median ms on the y axis, budget and noise lines."""
    labels = ", ".join(f'"{size:,}"' for size in profile.sizes)
    budget = next(b for b in time_budgets() if b["metric"] == metric)
    limit, noise = float(budget["limit"]), noise_ms()
    by_size = [(i.name, {s.messages: s for s in i.sizes}) for i in profile.implementations]
    series = [(name, [_value(sizes.get(size), attribute) for size in profile.sizes]) for name, sizes in by_size]
    known = [v for _, values in series for v in values if v is not None] + [limit, noise]
    low, high = math.floor(math.log10(min(known))), math.ceil(math.log10(max(known)))
    palette = [*series_colors(profile), BUDGET_COLOR, NOISE_COLOR]
    lines = [
        "```mermaid",
        f'%%{{init: {{"themeVariables": {{"xyChart": {{"plotColorPalette": "{", ".join(palette)}"}}}}}}}}%%',
        "xychart-beta",
        f'    title "{title}: median ms, log scale"',
        f'    x-axis "messages" [{labels}]',
        f'    y-axis "log10 ms (2 = 100 ms)" {low} --> {high}',
    ]
    for name, values in series:
        points = ", ".join(_log(v) if v is not None else str(low) for v in values)
        lines.append(f'    line "{name}" [{points}]')
    lines.append(f'    line "{budget["id"]} budget {limit:,g} ms" [{", ".join([_log(limit)] * len(profile.sizes))}]')
    lines.append(f'    line "noise level {noise:g} ms" [{", ".join([_log(noise)] * len(profile.sizes))}]')
    return [*lines, "```"]


def legend(profile: Profile) -> str:
    """The charts' colours in words, for renderers that draw no legend."""
    colors = zip(profile.implementations, series_colors(profile), strict=True)
    named = [f"{COLOR_NAMES[c]} `{i.name}`" for i, c in colors]
    budgets = " and ".join(f"{b['id']} ({float(b['limit']):,g} ms)" for b in time_budgets())
    return (
        f"Charts (log10 of the median ms: 0 = 1 ms, 1 = 10 ms, 2 = 100 ms, 3 = 1 s): {', '.join(named)}; "
        f"{COLOR_NAMES[BUDGET_COLOR]}: the budget ({budgets}); "
        f"{COLOR_NAMES[NOISE_COLOR]}: the {noise_ms():g} ms noise level (a median under it counts as flat). "
        "A flat cost stays level; a cost linear in the file climbs one step for each tenfold size."
    )


def render_markdown(profile: Profile) -> str:
    """The Markdown summary."""
    names = ", ".join(f"`{i.name}` ({i.description})" for i in profile.implementations)
    verdicts = [
        f"- {'✓' if i.verdict and i.verdict.good else '✗'} `{i.name}`: {i.verdict.summary if i.verdict else '-'}"
        for i in profile.implementations
    ]
    lines = [
        "## ccweb_list_user_inputs performance profile",
        "",
        f"{names}; {len(profile.sizes)} sizes in {profile.duration_s:.1f} s.",
        *([f"Config file: `{profile.config_file}`."] if profile.config_file else []),
        "",
        "**Verdict**",
        "",
        *verdicts,
        "",
        legend(profile),
        "",
    ]
    for title, attribute, metric in CHARTS:
        lines += [*mermaid_chart(profile, title, attribute, metric), ""]
    lines += markdown_text.table(SIZE_HEADERS, size_rows(profile))
    headers, rows = growth_table(profile)
    if rows:
        lines += ["", "Growth from the previous size (median ratio; e: exponent in time ~ size^e):", ""]
        lines += markdown_text.table(headers, rows)
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
    return "\n".join([*lines, ""])
