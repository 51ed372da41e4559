"""A small hand-written SVG line chart: latency against conversation size, one series per implementation.

Both axes are logarithmic (decades), so a cost linear in the file is a line of slope 1 and a
flat cost a horizontal line. Each implementation is one ``<g class="series">`` holding its
first-call curve (solid) and its repeated-call curve (dashed); every measured median is a
circle with a ``<title>`` that names it.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

from ccweb_conformance.profile.json_report import write_text
from ccweb_conformance.profile.model import ImplementationProfile, Profile

SVG_NS = "http://www.w3.org/2000/svg"
WIDTH, HEIGHT = 960, 560
LEFT, RIGHT, TOP, BOTTOM = 80, 290, 56, 64
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e")
REFERENCE_COLOR = "#6b6b6b"
LEGEND_NAME = 28
"""Characters of an implementation's name shown in the legend (the circles' titles have it all)."""
CURVES = (
    ("first", "first_median", "first call after a change", ""),
    ("repeated", "repeated_median", "repeated call, unchanged file", "6 4"),
)


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
    found = []
    for size in implementation.sizes:
        value = getattr(size, attribute)
        if value is not None:
            found.append((size.messages, max(float(value), 0.001)))
    return found


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


def render_svg(profile: Profile) -> str:
    """The chart as an SVG document."""
    ET.register_namespace("", SVG_NS)
    svg = ET.Element(
        f"{{{SVG_NS}}}svg",
        {"width": str(WIDTH), "height": str(HEIGHT), "viewBox": f"0 0 {WIDTH} {HEIGHT}", "font-family": "sans-serif"},
    )
    _sub(svg, "rect", width=str(WIDTH), height=str(HEIGHT), fill="white")
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
    scale = _Scale(_decades([float(s) for s in profile.sizes]), _decades(values or [1.0]))
    _axes(svg, scale)
    legend = _sub(svg, "g", class_="legend", font_size="12", fill="#333")
    legend_x = WIDTH - RIGHT + 20
    palette = iter(COLORS)
    row = 0
    for implementation in profile.implementations:
        color = REFERENCE_COLOR if implementation.is_reference and len(profile.implementations) > 1 else next(palette)
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
            y = str(TOP + 8 + row * 22)
            key = _sub(
                legend, "line", x1=str(legend_x), x2=str(legend_x + 28), y1=y, y2=y, stroke=color, stroke_width="2"
            )
            if dash:
                key.set("stroke-dasharray", dash)
            _sub(
                legend, "text", f"{implementation.name}: {kind}", x=str(legend_x + 36), y=y, dominant_baseline="middle"
            )
            row += 1
    note_y = TOP + 8 + row * 22 + 10
    _sub(legend, "text", "solid: first call after a change", x=str(legend_x), y=str(note_y), font_size="11")
    _sub(legend, "text", "dashed: repeated call, unchanged file", x=str(legend_x), y=str(note_y + 16), font_size="11")
    return ET.tostring(svg, encoding="unicode", xml_declaration=True) + "\n"


def write_profile_svg(profile: Profile, path: Path) -> None:
    """Write the chart to ``path``."""
    write_text(path, render_svg(profile))
