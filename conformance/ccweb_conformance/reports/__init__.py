"""Reports of a run: console summary, JUnit XML, the runner's JSON, Cucumber JSON, Markdown.

Every writer takes a :class:`~ccweb_conformance.reports.model.RunResult` and nothing else.
Writers open files as UTF-8 with ``errors="backslashreplace"``, so text the runner could not
decode (lone surrogates) never stops a report from being written. Which writer serves which
option is ``commands/report_formats.py``; nothing is imported here until a name is used, so
``ccweb-conformance list`` does not pay for the writers.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "build_cucumber",
    "build_json",
    "build_junit",
    "render_markdown",
    "render_summary",
    "report_schema",
    "write_cucumber",
    "write_json",
    "write_junit",
    "write_markdown",
]

_HOME = {
    "render_summary": "console",
    "build_cucumber": "cucumber",
    "write_cucumber": "cucumber",
    "build_json": "json_report",
    "report_schema": "json_report",
    "write_json": "json_report",
    "build_junit": "junit",
    "write_junit": "junit",
    "render_markdown": "markdown",
    "write_markdown": "markdown",
}
"""Public name -> the module of this package that defines it."""


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
