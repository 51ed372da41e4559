"""A small hand-written SVG line chart: latency against conversation size, one series per implementation.

Both axes are logarithmic (decades), so a cost linear in the file is a line of slope 1 (the
dotted guide) and a flat cost a horizontal line. Each implementation is one ``<g class="series">``
holding its first-call curve (solid) and its repeated-call curve (dashed); every measured median
is a circle with a ``<title>`` that names it. The time budgets of performance.yaml are red lines
(solid for the first call, dashed for repeated calls), the noise level a grey band at the
bottom (a median there counts as flat), and the verdict per implementation is written under the chart.
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET
from typing import Any

import ccweb_spec
from ccweb_conformance.profile.budgets import budgets
from ccweb_conformance.profile.model import ImplementationProfile, Profile

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH, HEIGHT = 960, 560
"""The chart's size without the verdict lines under it (each adds VERDICT_LINE)."""
LEFT, RIGHT, TOP, BOTTOM = 80, 290, 56, 64
VERDICT_LINE = 18
VERDICT_WIDTH = 135
"""Characters per verdict line before it wraps."""
BUDGET_COLOR = "#c0392b"
GOOD_COLOR = "#2e7d32"
NOISE_FILL = "#efefef"
GUIDE_COLOR = "#8c8c8c"
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
REFERENCE_COLOR = "#6b6b6b"
LEGEND_NAME = 28
"""Characters of an implementation's name shown in the legend (the circles' titles have it all)."""
CURVES = (
    ("first", "first_median", "first call after a change", ""),
    ("repeated", "repeated_median", "repeated call, unchanged file", "6 4"),
)
BUDGET_CURVES = {"first_ms": ("first call", ""), "repeated_ms": ("repeated call", "6 4")}
"""The budgets drawn as lines: the metric, the curve it limits, and that curve's dash."""


def time_budgets() -> list[dict[str, Any]]:
    """The budgets on a median time (PERF-1, PERF-2), in file order."""
    return [budget for budget in budgets() if budget["metric"] in BUDGET_CURVES]


def noise_ms() -> float:
    """The noise level of performance.yaml: a median under it counts as flat."""
    return float(ccweb_spec.performance()["growth"]["noise_ms"])


def series_colors(profile: Profile) -> list[str]:
    """The implementations' colours, in order: the reference grey beside a target, the others from the palette."""
    palette = iter(COLORS)
    return [
        REFERENCE_COLOR if i.is_reference and len(profile.implementations) > 1 else next(palette)
        for i in profile.implementations
    ]


def _decades(values: list[float]) -> tuple[int, int]:
    low = math.floor(math.log10(min(values)))
    high = math.ceil(math.log10(max(values)))
    return (low, high) if high > low else (low, low + 1)


class _Scale:
    """Log-log mapping from (messages, ms) to the plot area."""

    def __init__(self, x_decades: tuple[int, int], y_decades: tuple[int, int]) -> None:
        self.x0, self.x1 = x_decades
        self.y0, self.y1 = y_decades
        self.width = WIDTH - LEFT - RIGHT
        self.height = HEIGHT - TOP - BOTTOM

    def x(self, messages: float) -> float:
        return LEFT + (math.log10(messages) - self.x0) / (self.x1 - self.x0) * self.width

    def y(self, ms: float) -> float:
        return TOP + self.height - (math.log10(ms) - self.y0) / (self.y1 - self.y0) * self.height


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
    element = ET.SubElement(
        parent, f"{{{SVG_NS}}}{tag}", {k.rstrip("_").replace("_", "-"): v for k, v in attributes.items()}
    )
    if text is not None:
        element.text = text
    return element


def _number(value: float) -> str:
    return f"{value:.1f}"


def _tick_label(exponent: int) -> str:
    value = 10.0**exponent
    return f"{value:,.0f}" if exponent >= 0 else f"{value:g}"


def _points(implementation: ImplementationProfile, attribute: str) -> list[tuple[int, float]]:
    measured = ((size.messages, getattr(size, attribute)) for size in implementation.sizes)
    return [(messages, max(float(value), 0.001)) for messages, value in measured if value is not None]


def _axes(svg: ET.Element, scale: _Scale) -> None:
    axes = _sub(svg, "g", class_="axes", font_size="12", fill="#333")
    bottom, right = TOP + scale.height, LEFT + scale.width
    for exponent in range(scale.x0, scale.x1 + 1):
        x = _number(scale.x(10.0**exponent))
        _sub(axes, "line", class_="grid", x1=x, x2=x, y1=str(TOP), y2=str(bottom), stroke="#e5e5e5")
        _sub(axes, "text", _tick_label(exponent), class_="tick x", x=x, y=str(bottom + 18), text_anchor="middle")
    for exponent in range(scale.y0, scale.y1 + 1):
        y = _number(scale.y(10.0**exponent))
        _sub(axes, "line", class_="grid", x1=str(LEFT), x2=str(right), y1=y, y2=y, stroke="#e5e5e5")
        _sub(
            axes,
            "text",
            _tick_label(exponent),
            class_="tick y",
            x=str(LEFT - 8),
            y=y,
            text_anchor="end",
            dominant_baseline="middle",
        )
    _sub(axes, "line", class_="axis x", x1=str(LEFT), x2=str(right), y1=str(bottom), y2=str(bottom), stroke="#333")
    _sub(axes, "line", class_="axis y", x1=str(LEFT), x2=str(LEFT), y1=str(TOP), y2=str(bottom), stroke="#333")
    _sub(
        axes,
        "text",
        "messages in the conversation (log scale)",
        class_="label x",
        x=_number(LEFT + scale.width / 2),
        y=str(HEIGHT - 18),
        text_anchor="middle",
        font_size="13",
    )
    _sub(
        axes,
        "text",
        "median latency, ms (log scale)",
        class_="label y",
        x="20",
        y=_number(TOP + scale.height / 2),
        text_anchor="middle",
        font_size="13",
        transform=f"rotate(-90 20 {_number(TOP + scale.height / 2)})",
    )


def _noise_band(svg: ET.Element, scale: _Scale) -> None:
    """The grey band under the noise level, drawn under the grid."""
    noise = noise_ms()
    top, bottom = scale.y(noise), TOP + scale.height
    band = _sub(svg, "g", class_="noise")
    _sub(
        band, "rect", x=str(LEFT), y=_number(top), width=str(scale.width), height=_number(bottom - top), fill=NOISE_FILL
    )
    _sub(
        band,
        "text",
        f"under {noise:g} ms: round-trip noise (counts as flat)",
        x=str(LEFT + 6),
        y=_number(bottom - 6),
        font_size="11",
        fill="#777",
    )


def _budget_lines(svg: ET.Element, scale: _Scale) -> None:
    """A red line per time budget, from the size it applies to, labelled at its left end."""
    group = _sub(svg, "g", class_="budgets", stroke=BUDGET_COLOR, fill=BUDGET_COLOR, font_size="11")
    right = LEFT + scale.width
    for budget in time_budgets():
        curve, dash = BUDGET_CURVES[budget["metric"]]
        limit = float(budget["limit"])
        y = _number(scale.y(limit))
        start = _number(max(LEFT, scale.x(max(float(budget["from_messages"]), 1.0))))
        line = _sub(group, "line", class_=f"budget {budget['id']}", x1=start, x2=str(right), y1=y, y2=y)
        line.set("stroke-width", "1.5")
        if dash:
            line.set("stroke-dasharray", dash)
        _sub(
            group,
            "text",
            f"{budget['id']} budget, {curve}: {limit:,.0f} ms",
            x=_number(float(start) + 4),
            y=_number(scale.y(limit) - 5),
            stroke="none",
        )


def _linear_guide(svg: ET.Element, scale: _Scale) -> None:
    """A dotted line of slope 1 from the lower left corner: how a cost linear in the file rises."""
    decades = min(scale.x1 - scale.x0, scale.y1 - scale.y0)
    x0, y0 = 10.0**scale.x0, 10.0**scale.y0
    x1, y1 = x0 * 10**decades, y0 * 10**decades
    group = _sub(svg, "g", class_="guide", stroke=GUIDE_COLOR, fill=GUIDE_COLOR, font_size="11")
    _sub(
        group,
        "line",
        x1=_number(scale.x(x0)),
        y1=_number(scale.y(y0)),
        x2=_number(scale.x(x1)),
        y2=_number(scale.y(y1)),
        stroke_dasharray="2 4",
    )
    _sub(
        group,
        "text",
        "linear in the file (slope 1)",
        x=_number(scale.x(x1) - 4),
        y=_number(scale.y(y1) + 14),
        text_anchor="end",
        stroke="none",
    )


def verdict_lines(profile: Profile) -> list[tuple[ImplementationProfile, str]]:
    """The verdict per implementation, wrapped: (implementation, line); the mark goes before its first line."""
    lines = []
    for implementation in profile.implementations:
        missed = sorted({a.budget for a in profile.advisories if a.implementation == implementation.name})
        text = f"{implementation.name}: {implementation.verdict.summary if implementation.verdict else 'not judged'}"
        if missed:
            text += f"; advisory budgets missed: {', '.join(missed)}"
        lines += [(implementation, line) for line in textwrap.wrap(text, VERDICT_WIDTH, subsequent_indent="  ")]
    return lines


def _legend_key(legend: ET.Element, row: int, label: str, **stroke: str) -> None:
    y = str(TOP + 8 + row * 22)
    legend_x = WIDTH - RIGHT + 20
    _sub(legend, "line", x1=str(legend_x), x2=str(legend_x + 28), y1=y, y2=y, **stroke)
    _sub(legend, "text", label, x=str(legend_x + 36), y=y, dominant_baseline="middle")


def _legend_marks(legend: ET.Element, row: int) -> None:
    """The legend's keys after the series: budgets, the linear guide, the noise band, the dash note."""
    for budget in time_budgets():
        curve, dash = BUDGET_CURVES[budget["metric"]]
        key = f"{budget['id']} budget, {curve}"
        _legend_key(legend, row, key, stroke=BUDGET_COLOR, stroke_width="1.5", stroke_dasharray=dash or "none")
        row += 1
    _legend_key(legend, row, "linear in the file", stroke=GUIDE_COLOR, stroke_dasharray="2 4")
    row += 1
    legend_x, y = WIDTH - RIGHT + 20, TOP + 8 + row * 22
    _sub(legend, "rect", x=str(legend_x), y=str(y - 7), width="28", height="14", fill=NOISE_FILL, stroke="#ccc")
    noise = f"noise: under {noise_ms():g} ms"
    _sub(legend, "text", noise, x=str(legend_x + 36), y=str(y), dominant_baseline="middle")
    note_y = TOP + 8 + (row + 1) * 22 + 10
    _sub(legend, "text", "solid: first call after a change", x=str(legend_x), y=str(note_y), font_size="11")
    _sub(legend, "text", "dashed: repeated call, unchanged file", x=str(legend_x), y=str(note_y + 16), font_size="11")


def _verdict_block(svg: ET.Element, verdicts: list[tuple[ImplementationProfile, str]], colors: dict[str, str]) -> None:
    """The verdicts under the chart, each in its series' colour, with a check or a cross."""
    block = _sub(svg, "g", class_="verdict", font_size="13")
    _sub(block, "text", "Verdict", x=str(LEFT - 60), y=str(HEIGHT + 6), font_weight="bold", fill="#333")
    marked: set[str] = set()
    for number, (implementation, text) in enumerate(verdicts, 1):
        good = implementation.verdict is not None and implementation.verdict.good
        line = _sub(
            block,
            "text",
            class_="verdict-line " + ("good" if good else "bad"),
            data_implementation=implementation.name,
            x=str(LEFT - 60),
            y=str(HEIGHT + 6 + number * VERDICT_LINE),
            fill=colors[implementation.name],
        )
        first = implementation.name not in marked
        marked.add(implementation.name)
        mark = ("\u2713 " if good else "\u2717 ") if first else "   "
        _sub(line, "tspan", mark, class_="mark", fill=GOOD_COLOR if good else BUDGET_COLOR, font_weight="bold")
        _sub(line, "tspan", text)


def render_svg(profile: Profile) -> str:
    """The chart as an SVG document."""
    ET.register_namespace("", SVG_NS)
    verdicts = verdict_lines(profile)
    height = HEIGHT + 28 + VERDICT_LINE * len(verdicts)
    svg = ET.Element(
        f"{{{SVG_NS}}}svg",
        {"width": str(WIDTH), "height": str(height), "viewBox": f"0 0 {WIDTH} {height}", "font-family": "sans-serif"},
    )
    _sub(svg, "rect", width=str(WIDTH), height=str(height), fill="white")
    _sub(
        svg,
        "text",
        "ccweb_list_user_inputs: latency against conversation size",
        class_="title",
        x=str(LEFT),
        y="30",
        font_size="16",
        font_weight="bold",
    )
    values = [v for i in profile.implementations for _, a, _, _ in CURVES for _, v in _points(i, a)]
    values += [float(b["limit"]) for b in time_budgets()] + [noise_ms()]
    scale = _Scale(_decades([float(s) for s in profile.sizes]), _decades(values))
    _noise_band(svg, scale)
    _axes(svg, scale)
    _linear_guide(svg, scale)
    _budget_lines(svg, scale)
    legend = _sub(svg, "g", class_="legend", font_size="12", fill="#333")
    colors: dict[str, str] = {}
    row = 0
    for implementation, color in zip(profile.implementations, series_colors(profile), strict=True):
        colors[implementation.name] = color
        series = _sub(svg, "g", class_="series", data_implementation=implementation.name, stroke=color, fill=color)
        for kind, attribute, meaning, dash in CURVES:
            points = _points(implementation, attribute)
            coordinates = " ".join(f"{_number(scale.x(m))},{_number(scale.y(v))}" for m, v in points)
            line = _sub(series, "polyline", class_=f"curve {kind}", points=coordinates, fill="none", stroke_width="2")
            if dash:
                line.set("stroke-dasharray", dash)
            for messages, value in points:
                circle = _sub(
                    series,
                    "circle",
                    class_=f"point {kind}",
                    cx=_number(scale.x(messages)),
                    cy=_number(scale.y(value)),
                    r="4",
                    data_messages=str(messages),
                    data_ms=f"{value:.3f}",
                )
                _sub(circle, "title", f"{implementation.name}, {meaning}, {messages:,} messages: {value:,.2f} ms")
            name = implementation.name[:LEGEND_NAME]
            _legend_key(legend, row, f"{name}: {kind}", stroke=color, stroke_width="2", stroke_dasharray=dash or "none")
            row += 1
    _legend_marks(legend, row)
    _verdict_block(svg, verdicts, colors)
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"
