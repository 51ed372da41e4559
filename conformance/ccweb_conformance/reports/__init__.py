"""Reports of a run: console summary, JUnit XML, the runner's JSON, Cucumber JSON, Markdown.

Every writer takes a :class:`~ccweb_conformance.reports.model.RunResult` and nothing else.
Writers open files as UTF-8 with ``errors="backslashreplace"``, so text the runner could not
decode (lone surrogates) never stops a report from being written.
"""

from __future__ import annotations

from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.cucumber import build_cucumber, write_cucumber
from ccweb_conformance.reports.json_report import build_json, report_schema, write_json
from ccweb_conformance.reports.junit import build_junit, write_junit
from ccweb_conformance.reports.markdown import render_markdown, write_markdown

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
