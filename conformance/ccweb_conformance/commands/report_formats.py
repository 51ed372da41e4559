"""Every report format, once: its option, its label, the command it belongs to and its renderer.

``run``, ``profile`` and ``list`` write their reports with :func:`write_reports`, the Action's check
(tests/packaging/test_action.py) reads :func:`formats` for ``run``. Adding a format is one
row of ``report_formats.yaml``, its renderer (``module:function``, imported only when the report is asked for,
returning the report's text) and its test; its option is the row of the same name in ``options.RunnerOptions``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ccweb_conformance.reports.github import is_step_summary
from ccweb_conformance.reports.neutral import neutral
from ccweb_conformance.reports.output import place
from ccweb_conformance.values import ReportRequests
from ccweb_spec import yaml_data

__all__ = ["ReportFormat", "all_formats", "formats", "write_reports"]


@dataclass(frozen=True)
class ReportFormat:
    """One report a command can write."""

    option: str
    """The field of :class:`~ccweb_conformance.options.RunnerOptions` that holds its path (``--json``: json)."""
    label: str
    command: str
    renderer: str
    """``module:function``; the function takes (document, **keywords) and returns the report's text."""
    keywords: tuple[str, ...] = ()
    """Which of ``flavour`` (--cucumber-flavour) and ``language`` (--lang) the renderer takes."""
    appends_to_step_summary: bool = False
    """True when, written to the file ``GITHUB_STEP_SUMMARY`` names, the report is appended to it (an
    earlier step's text stays, as GitHub's convention wants) instead of replacing it."""
    plain_text: bool = False
    """True when the format has no escape of its own for the server's text (Markdown's code): it is rendered
    from the neutral copy of the document (:func:`~ccweb_conformance.reports.neutral.neutral`)."""

    def render(self, document: Any, context: dict[str, Any]) -> str:
        """The report of ``document`` as text."""
        module, _, name = self.renderer.partition(":")
        function: Callable[..., str] = getattr(importlib.import_module(module), name)
        return function(document, **{key: context[key] for key in self.keywords})


@cache
def all_formats() -> tuple[ReportFormat, ...]:
    """Every format, from ``report_formats.yaml`` beside this module (read once)."""
    rows = yaml_data((Path(__file__).parent / "report_formats.yaml").read_text(encoding="utf-8"))
    return tuple(ReportFormat(**{**row, "keywords": tuple(row.get("keywords", ()))}) for row in rows)


def formats(command: str) -> list[ReportFormat]:
    """The formats ``command`` writes, in the order they are written."""
    return [f for f in all_formats() if f.command == command]


def requested(reports: ReportRequests, command: str) -> list[tuple[ReportFormat, Path]]:
    """The reports asked of ``command``, each with its path, in the order they are written."""
    return [(f, path) for f in formats(command) if (path := reports.path(f.option)) is not None]


def write_reports(document: Any, reports: ReportRequests, command: str, *, language: str, safe: Any = None) -> bool:
    """Write every report ``command`` was asked for, each once and on its own: one that fails is one line on stderr.

    ``document`` has its secrets redacted already. ``safe``: its neutral copy, when the caller has made it; else it
    is made here, once, if a plain-text format needs it.
    """
    context = {"flavour": reports.cucumber_flavour, "language": language}
    written = True
    for report, path in requested(reports, command):
        try:
            if report.plain_text and safe is None:
                safe = neutral(document)
            text = report.render(safe if report.plain_text else document, context)
            place(text, path, append=report.appends_to_step_summary and is_step_summary(path))
        except Exception as error:
            written = False
            print(
                f"ccweb-conformance: error: could not write the {report.label} report {str(path)!r}: {error}",
                file=sys.stderr,
            )
    return written
