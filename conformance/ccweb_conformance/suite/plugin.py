"""pytest plugin: runs the features against a target.

Loaded only where it is named: the runner's session passes ``-p ccweb_conformance.suite.plugin``
(with auto-loading off), plain pytest the same ``-p``. There is no ``pytest11`` entry point, so a
project's own pytest run in the same venv never imports it (nor, through it, the kit). Once
loaded it adds the ``--ccweb-*`` options and fixtures, and its hooks touch nothing but the
suite's own scenarios.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

import ccweb_spec
from ccweb_conformance.engine.scenarios import Step
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import from_plugin, plugin_options
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.items import is_scenario, planned_of, session_features
from ccweb_conformance.suite.plan_selection import chooser
from ccweb_conformance.suite.planned import ScenarioRun
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import pasted_scenarios
from ccweb_conformance.suite.stage import Stage
from ccweb_conformance.suite.step_log import StepLog
from ccweb_conformance.suite.world import World, raise_era_disagreement
from ccweb_conformance.transport import signals
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import RunValues, resolve_values

COLLECTOR_KEY = pytest.StashKey[ResultCollector]()
STAGE_KEY = pytest.StashKey[Stage]()
"""The run's workspace, target and shared files (``suite/stage.py``), with a run context of its own."""
OPTIONS_KEY = pytest.StashKey[RunValues]()
STEP_FAILED_KEY = pytest.StashKey[bool]()
STEP_LOG_KEY = pytest.StashKey[StepLog]()
"""The steps of a scenario that started, on its item."""


class ShouldWarning(UserWarning):
    """A scenario that proves only SHOULD-level requirements failed: a warning, not a failure (``--ccweb-strict``
    makes it one)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--ccweb-*`` options (the CLI sets them for you), declared in the option table."""
    plugin_options(parser.getgroup("ccweb", "ccweb_list_user_inputs conformance").addoption)


def pytest_configure(config: pytest.Config) -> None:
    """Register the scenario tags as markers and prepare the result collector."""
    for requirement in ccweb_spec.requirements():
        config.addinivalue_line("markers", f"{requirement.id}: {requirement.level} {requirement.statement[:60]}")
    for group in ccweb_spec.groups():
        config.addinivalue_line("markers", f"{group.id}: {group.title[:60]}")
    config.addinivalue_line("markers", "should: a scenario that proves only SHOULD-level requirements")
    values = config.stash[OPTIONS_KEY] = resolve_values(from_plugin(config.getoption))
    config.stash[COLLECTOR_KEY] = ResultCollector.of(values)
    config.stash[STAGE_KEY] = Stage(RunContext(), Workspace(values.target.sessions_dir), owned=True)


@pytest.hookimpl(tryfirst=True)  # before -k and --lf deselect: the collector sees the whole suite
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Note what ``-k`` matches every scenario by (each failure's reproducer is a ``-k`` that selects it
    alone), then apply --ccweb-tags and --ccweb-expected-failures to the suite's scenarios only."""
    for item in items:  # -k ac07 selects the scenarios of ac07_unicode.feature
        if is_scenario(item):
            item.extra_keyword_matches.add(planned_of(item).feature_file)
    collector = config.stash[COLLECTOR_KEY]
    collector.suite_keywords = [(p.test_name, p.keywords) for p in map(planned_of, filter(is_scenario, items))]
    selection = config.stash[OPTIONS_KEY].selection
    scenarios = feature_scenarios(session_features(config))
    if selection.keyword and pasted_scenarios(selection.keyword, scenarios) is not None:
        config.option.keyword = ""  # what --co printed, pasted into -k: those scenarios; pytest's -k must not parse it
    keeps = chooser(selection, scenarios, expected=collector.expected, keyword=False)
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        wanted, reason = keeps(planned_of(item)) if is_scenario(item) else (True, None)
        if not wanted:
            deselected.append(item)
            continue
        if reason is not None:  # a scenario entry is strict; requirement entries are judged on the charge
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """The scenarios that will run, once every deselection is done: after ``-k`` and ``--ccweb-tags`` alike (``-k``
    deselects in pytest's own ``pytest_collection_modifyitems``, which may run after this plugin's), so that the
    target starts early only the stdio processes of scenarios that really run (``suite/stage.py``)."""
    session.config.stash[COLLECTOR_KEY].planned = [planned_of(item) for item in session.items if is_scenario(item)]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """Once the run must stop (--max-time, the server stopped answering), record the rest as not run."""
    del nextitem
    if not is_scenario(item):
        return None
    collector = item.config.stash[COLLECTOR_KEY]
    reason = collector.check_stop()
    if reason is None:
        return None
    collector.record_not_run(planned_of(item), reason)
    return True


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every selected scenario that did not run (interrupt, a stop) is recorded as not run."""
    collector = session.config.stash[COLLECTOR_KEY]
    state = signals.current()
    name = state.name if state is not None and state.interrupted else None
    collector.finish(f"not run: the run was interrupted by {name}" if name else "not run: the run stopped early")


def _logged(step: Any) -> Step:
    """A pytest-bdd step as the step log keeps it."""
    table = step.datatable
    rows = None if table is None else tuple(tuple(str(c) for c in row) for row in table.raw())
    return Step(None, step.keyword, step.name, step.line_number or 0, rows, step.docstring)


def pytest_bdd_before_scenario(request: pytest.FixtureRequest, feature: Any, scenario: Any) -> None:
    """A scenario of the kit's features starts: its steps are logged from here (pytest-bdd's public hooks)."""
    del feature
    if COLLECTOR_KEY in request.config.stash and is_scenario(request.node):
        request.node.stash[STEP_LOG_KEY] = StepLog([_logged(step) for step in scenario.steps])


def pytest_bdd_before_step(request: pytest.FixtureRequest, step: Any, **_ignored: Any) -> None:
    """A step starts."""
    log = request.node.stash.get(STEP_LOG_KEY, None)
    if log is not None:
        log.before_step(_logged(step))


def pytest_bdd_after_step(request: pytest.FixtureRequest, **_ignored: Any) -> None:
    """A step passed."""
    log = request.node.stash.get(STEP_LOG_KEY, None)
    if log is not None:
        log.after_step()


def pytest_bdd_step_error(request: pytest.FixtureRequest, **_ignored: Any) -> None:
    """A step failed: its failure is the scenario's (pytest-bdd calls the after-scenario hook all the same)."""
    request.node.stash[STEP_FAILED_KEY] = True
    log = request.node.stash.get(STEP_LOG_KEY, None)
    if log is not None:
        log.step_error()


def pytest_bdd_after_scenario(request: pytest.FixtureRequest, feature: Any, scenario: Any) -> None:
    """Every step passed: a call the eras answered differently fails now (the first era's answer was wrong, D-16)."""
    del feature, scenario
    world = request.config.stash[COLLECTOR_KEY].world_of(planned_of(request.node))
    if world is not None and not request.node.stash.get(STEP_FAILED_KEY, False):
        raise_era_disagreement(world)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Record each scenario; a failed SHOULD-only scenario becomes a warning unless strict."""
    report: pytest.TestReport = yield
    if is_scenario(item) and not (report.when == "setup" and report.passed):
        _observe(item.config.stash[COLLECTOR_KEY], item, call, report)
    return report


def _observe(
    collector: ResultCollector, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """Hand the collector what the scenario's phase left; pytest's report then says what the collector decided (a
    warning passes, a failure a requirement entry covers is an expected failure, the runner's fault blames none)."""
    planned = planned_of(item)
    if collector.recorded(planned):
        return
    status = collector.observe(planned, _scenario_run(item, call, report))
    if status == "warning":  # shown in pytest's warnings summary; --ccweb-strict fails it
        item.warn(ShouldWarning(collector.results[-1].message or planned.nodeid))
    if status is None or status == "warning":
        report.outcome = "passed"
    elif status == "xfailed" and report.failed:
        report.outcome = "skipped"
        report.wasxfail = collector.results[-1].expected_failure_reason or ""


def _scenario_run(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> ScenarioRun:
    """What the phase that decides the scenario left, as the collector reads it."""
    marker = item.get_closest_marker("xfail")
    skipped = None
    if report.skipped and getattr(report, "wasxfail", None) is None:
        error = call.excinfo.value if call.excinfo is not None else ""
        said = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(error)
        skipped = said.removeprefix("Skipped: ")
    log = item.stash.get(STEP_LOG_KEY, None)
    return ScenarioRun(
        error=call.excinfo.value if call.excinfo is not None else None,
        skipped=skipped,
        duration=report.duration,
        steps=tuple(log.results()) if log is not None else (),
        expected_failure=None if marker is None or report.passed else str(marker.kwargs.get("reason", "")),
    )


@pytest.fixture(scope="session")
def ccweb_target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The implementation under test, started once per run; stopped and cleaned up on every path."""
    problems = from_plugin(request.config.getoption).problems()
    if problems:
        raise pytest.UsageError("; ".join(problems))
    collector, stage = request.config.stash[COLLECTOR_KEY], request.config.stash[STAGE_KEY]
    try:
        stopped = stage.start(request.config.stash[OPTIONS_KEY].target, collector, age=True)
        if stopped is not None:
            pytest.exit(stopped.line, returncode=stopped.code)
        assert stage.target is not None
        yield stage.target
    finally:  # whatever failed (no thread left to stop the servers with): stopped and removed all the same
        try:
            stage.end(collector)
        finally:
            stage.context.fork_server.stop()
    audit = collector.audit_failure()
    if audit is not None:  # a failed whole-run audit fails the run: an error at the last scenario's teardown
        pytest.fail(audit, pytrace=False)


@pytest.fixture
def ccweb_decoy_id(ccweb_target: Target, request: pytest.FixtureRequest) -> str:
    """A valid conversation shared by the run, bound as source where a scenario must not fall back."""
    del ccweb_target  # the workspace's directory is made, and the server started, before the decoy is written
    return request.config.stash[STAGE_KEY].decoy_id()


@pytest.fixture
def world(ccweb_target: Target, request: pytest.FixtureRequest) -> Iterator[World]:
    """A scenario's state; its conversation files are removed when it ends."""
    del ccweb_target
    collector, stage = request.config.stash[COLLECTOR_KEY], request.config.stash[STAGE_KEY]
    planned = planned_of(request.node)
    made = stage.files(collector.next_scenario_number(), planned)
    state = None
    try:
        state = stage.world(planned, made, collector, None)
        yield state
    finally:
        stage.retire(state, made)  # kept, fingerprinted, until the whole-run audit; removed after it
