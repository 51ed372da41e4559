"""Reports of a run: console summary, JUnit XML, the runner's JSON, Cucumber JSON, Markdown.

Every renderer takes a :class:`~ccweb_conformance.reports.model.RunResult` (its secrets already redacted,
:mod:`~ccweb_conformance.reports.redact`) and returns the report's text; ``output.place`` writes it once. Which
renderer serves which option is ``commands/report_formats.py``; nothing is imported here until a name is used, so
``ccweb-conformance list`` does not pay for the writers.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "build_cucumber",
    "build_json",
    "build_junit",
    "render_cucumber",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_summary",
    "report_schema",
]

_HOME = {
    "render_summary": "console",
    "build_cucumber": "cucumber",
    "render_cucumber": "cucumber",
    "build_json": "json_report",
    "report_schema": "json_report",
    "render_json": "json_report",
    "build_junit": "junit",
    "render_junit": "junit",
    "render_markdown": "markdown",
}
"""Public name -> the module of this package that defines it."""


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
