"""Runs the conformance suite in a pytest session of its own and hands back what it collected.

The only place that calls pytest: the command line asks for a run and gets a
:class:`SuiteOutcome`, without importing pytest itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.resources import as_file, files
from pathlib import Path

import pytest

from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.plugin import GivenWorkspace, ResolvedOptions
from ccweb_conformance.suite.progress import RunObserver
from ccweb_conformance.suite.selection import options_selection
from ccweb_conformance.values import RunValues, Selection

__all__ = ["PYTEST_ENVIRONMENT", "SuiteOutcome", "pytest_arguments", "run_suite", "selection_label"]

PYTEST_ENVIRONMENT = (
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    "PYTEST_DEBUG",
    "PYTEST_DEBUG_TEMPROOT",
    "PYTEST_THEME",
    "PYTEST_THEME_MODE",
)
"""The variables pytest reads its configuration from (``pytest --help``'s list): hidden from the run's session.

A CI job exports ``PYTEST_ADDOPTS`` for its own tests; reaching the runner's session, a ``-k``
there deselected MUST scenarios and the run still said PASSED.
"""


@dataclass
class SuiteOutcome:
    """What a suite run left: its collector, or why it could not run."""

    collector: ResultCollector | None
    startup_error: str | None
    """Why the implementation could not be started or reached."""
    broken: str | None
    """Why the suite itself could not run (pytest's usage or internal error)."""
    deselected: int = 0
    """Scenarios collected but deselected (by ``-k`` / ``--tags``; anything else is a bug the verdict shows)."""


def pytest_arguments(selection: Selection, suite: Path) -> list[str]:
    """The pytest command line that runs the suite for this selection."""
    return [
        str(suite),
        "-c",
        os.devnull,
        "--rootdir",
        str(suite.parent),
        # Only the plugins the suite needs, whatever else the environment has installed
        # (pytest-randomly, pytest-xdist...); the steps raise their own messages, so no
        # assertion rewriting (which cost about 0.5 s a run).
        "--disable-plugin-autoload",
        "--noconftest",  # a conftest.py above the installed package (a venv inside a project) stays out
        "-p",
        "pytest_bdd.plugin",
        "-p",
        "ccweb_conformance.suite.plugin",
        "--assert=plain",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        "-p",
        "no:unraisableexception",  # its garbage collections at exit cost 0.1 s
        "-p",
        "no:threadexception",  # the reader threads end quietly at end of stream; workers report through futures
        "-p",
        "no:logging",  # no step logs: its handlers, set up three times per scenario, cost about 2 % of a run
        # No output capture: nothing reads it, and a SIGINT landing inside its per-test reading left a traceback on
        # the console (seen beside 8 busy processes).
        "--capture=no",
        # Scenario names as written (Chinese stays Chinese, an emoji stays an emoji), not pytest's
        # ASCII escapes of outline example values.
        "-o",
        "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=true",
        *selection.pytest_words,  # -k and --collect-only; the plugin gets the values as an object
    ]


class _Gate:
    """A pytest plugin: gives the environment back once pytest has read its configuration; counts deselections."""

    def __init__(self, hidden: dict[str, str]) -> None:
        self.hidden = hidden
        self.deselected = 0

    def restore(self) -> None:
        """Put the hidden variables back (once): the servers the session starts get the user's environment."""
        os.environ.update(self.hidden)
        self.hidden = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self) -> None:
        """The configuration is read: nothing in pytest looks at these variables again."""
        self.restore()

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        """Count what any plugin or option deselected."""
        self.deselected += len(items)


@contextmanager
def _gate() -> Iterator[_Gate]:
    """Hide :data:`PYTEST_ENVIRONMENT` while pytest starts; always put it back."""
    gate = _Gate({name: os.environ.pop(name) for name in PYTEST_ENVIRONMENT if name in os.environ})
    try:
        yield gate
    finally:
        gate.restore()


def selection_label(selection: Selection, outcome: SuiteOutcome | None) -> str | None:
    """What the run selected, for every report: ``--tags`` and ``-k``, or what else deselected scenarios."""
    chosen = options_selection(selection)
    if chosen:
        return chosen
    if outcome is not None and outcome.deselected:
        return f"{outcome.deselected} scenarios deselected outside the command line"
    return None


def run_suite(
    values: RunValues,
    *,
    live: bool,
    extra_plugins: Sequence[object] = (),
    workspace: Workspace | None = None,
    quiet: bool = False,
) -> SuiteOutcome:
    """Run the selected scenarios against the target ``values`` name, in ``workspace`` (else one of the suite's own);
    ``quiet``: no progress line (a failure rerun alone).

    pytest reads no configuration but this command line: not :data:`PYTEST_ENVIRONMENT`, no ini
    file (``-c`` the null device), no conftest.py, no auto-loaded plugin.
    """
    observer = RunObserver(verbose=values.verbose, live=live, log=not quiet)
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite, _gate() as gate:
        given = [] if workspace is None else [GivenWorkspace(workspace)]
        plugins = [gate, observer, ResolvedOptions(values), *given, *extra_plugins]
        code = pytest.main(pytest_arguments(values.selection, suite), plugins=plugins)
    broken = None
    if observer.startup_error is None and (
        code in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERNAL_ERROR) or observer.collector is None
    ):
        broken = f"the suite could not run (pytest exit code {int(code)})"
    return SuiteOutcome(observer.collector, observer.startup_error, broken, gate.deselected)
