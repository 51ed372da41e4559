"""Every report format, once: its option, its label, the command it belongs to and its writer.

``run``, ``profile`` and ``list`` write their reports with :func:`write_reports`, the Action's check
(tests/packaging/test_action.py) reads :func:`formats` for ``run``. Adding a format is one
row here, its writer (``module:function``, imported only when the report is asked for) and
its test; its option is the row of the same name in ``options.RunnerOptions``.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.reports.github import is_step_summary
from ccweb_conformance.reports.neutral import neutral
from ccweb_conformance.reports.output import emit

__all__ = ["FORMATS", "ReportFormat", "formats", "write_reports"]


@dataclass(frozen=True)
class ReportFormat:
    """One report a command can write."""

    option: str
    """The field of :class:`~ccweb_conformance.options.RunnerOptions` that holds its path (``--json``: json)."""
    label: str
    command: str
    writer: str
    """``module:function``; the function takes (document, path, **keywords)."""
    keywords: tuple[str, ...] = ()
    """Which of ``flavour`` (--cucumber-flavour) and ``language`` (--lang) the writer takes."""
    appends_to_step_summary: bool = False
    """True when, written to the file ``GITHUB_STEP_SUMMARY`` names, the report is appended to it (an
    earlier step's text stays, as GitHub's convention wants) instead of replacing it."""

    def write(self, document: Any, path: Path, context: dict[str, Any]) -> None:
        """Render ``document`` to ``path`` (a staging file; :func:`write_reports` places it)."""
        module, _, name = self.writer.partition(":")
        function: Callable[..., None] = getattr(importlib.import_module(module), name)
        function(document, path, **{key: context[key] for key in self.keywords})


FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("junitxml", "JUnit XML", "run", "ccweb_conformance.reports.junit:write_junit", ("language",)),
    ReportFormat("json", "JSON", "run", "ccweb_conformance.reports.json_report:write_json"),
    ReportFormat(
        "cucumberjson", "Cucumber JSON", "run", "ccweb_conformance.reports.cucumber:write_cucumber", ("flavour",)
    ),
    ReportFormat(
        "markdown",
        "Markdown",
        "run",
        "ccweb_conformance.reports.markdown:write_markdown",
        ("language",),
        appends_to_step_summary=True,
    ),
    ReportFormat("json", "JSON", "profile", "ccweb_conformance.profile.json_report:write_profile_json"),
    ReportFormat(
        "markdown",
        "Markdown",
        "profile",
        "ccweb_conformance.profile.markdown:write_profile_markdown",
        appends_to_step_summary=True,
    ),
    ReportFormat("svg", "SVG", "profile", "ccweb_conformance.profile.svg:write_profile_svg"),
    ReportFormat("json", "JSON", "list", "ccweb_conformance.reports.listing:write_listing_json"),
)


def formats(command: str) -> list[ReportFormat]:
    """The formats ``command`` writes, in the order they are written."""
    return [f for f in FORMATS if f.command == command]


def requested(options: RunnerOptions, command: str) -> list[Path]:
    """The report paths the options ask ``command`` for."""
    return [path for f in formats(command) if (path := getattr(options, f.option)) is not None]


def _render(report: ReportFormat, document: Any, path: Path, *, context: dict[str, Any]) -> None:
    report.write(document, path, context)


def write_reports(document: Any, options: RunnerOptions, command: str, *, language: str, safe: Any = None) -> bool:
    """Write every report ``command`` was asked for, each on its own: one that fails is one line on stderr.

    ``safe``: ``document`` with server text neutralised (:func:`neutral`), when the caller has made it; else it is
    made here once for all the reports.
    """
    context = {"flavour": options.cucumber_flavour, "language": language}
    written = True
    for report in formats(command):
        path: Path | None = getattr(options, report.option)
        if path is None:
            continue
        try:
            append = report.appends_to_step_summary and is_step_summary(path)
            safe = neutral(document) if safe is None else safe
            render = functools.partial(_render, report, context=context)
            emit(render, safe, path, options.secrets(), append=append, neutralised=True)
        except Exception as error:
            written = False
            print(
                f"ccweb-conformance: error: could not write the {report.label} report {str(path)!r}: {error}",
                file=sys.stderr,
            )
    return written
