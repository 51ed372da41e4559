"""Cucumber JSON in every flavour from one run (for the schema tests): called in a forked run's child before the
run (``runner/cli/expected_failures_runs.py``'s ``calls``), ``--cucumberjson PATH`` then writes PATH.js, PATH.jvm
and PATH.ruby."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.reports import cucumber
from ccweb_conformance.reports.model import RunResult

FLAVOURS = ("js", "jvm", "ruby")


def every_flavour(argv: list[str]) -> None:
    """Make the run of ``argv`` write its ``--cucumberjson PATH`` in every flavour, beside the one it asks for."""
    target = argv[argv.index("--cucumberjson") + 1]
    render = cucumber.render_cucumber

    def _every_flavour(run: RunResult, flavour: str = "js") -> str:
        for name in FLAVOURS:
            Path(f"{target}.{name}").write_text(render(run, name), encoding="utf-8", errors="backslashreplace")
        return render(run, flavour)

    cucumber.render_cucumber = _every_flavour  # the report-format registry looks the renderer up when it renders
