"""pytest plugin: runs the features against a target.

Loaded only where it is named: the runner's session passes ``-p ccweb_conformance.suite.plugin``
(with auto-loading off), plain pytest the same ``-p``. There is no ``pytest11`` entry point, so a
project's own pytest run in the same venv never imports it (nor, through it, the kit). Once
loaded it adds the ``--ccweb-*`` options and fixtures, and its hooks touch nothing but the
suite's own scenarios.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import ccweb_spec
from ccweb_conformance.checks.ledger import SessionsLedger, unlistable
from ccweb_conformance.errors import HandshakeViolation, TargetError
from ccweb_conformance.fixtures.conversations import cc_web_session
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import from_plugin, plugin_options
from ccweb_conformance.suite.ageing import EarlyFiles, scenario_files, write_early
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.expected_failures import ExpectedFailures, load_expected_failures
from ccweb_conformance.suite.items import is_scenario, planned_of, scenario_template
from ccweb_conformance.suite.lookahead import (
    DECOY_ALIAS,
    SHARED_PREFIX,
    AgedConversation,
    aged_conversations,
    decoy_id,
    upcoming_sources,
)
from ccweb_conformance.suite.planned import ScenarioRun
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.suite.selection import pasted_match, pasted_scenarios
from ccweb_conformance.suite.step_log import LoggedStep, StepLog
from ccweb_conformance.suite.world import CallObserver, World, declared_output_schema, raise_era_disagreement
from ccweb_conformance.transport import limits, signals
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import RunValues, resolve_values

COLLECTOR_KEY = pytest.StashKey[ResultCollector]()
WORKSPACE_KEY = pytest.StashKey[Workspace]()
"""The run's sessions directory and conversation names (``fixtures/workspace.py``)."""
OWNS_WORKSPACE_KEY = pytest.StashKey[bool]()
"""True when the plugin made the workspace (plain pytest, ``export``) and so closes it; a command closes its own."""
SOURCES_KEY = pytest.StashKey[list[str | None]]()
AGED_KEY = pytest.StashKey[list[AgedConversation]]()
"""The conversations the selected scenarios want unchanged for some seconds (``suite/lookahead.py``)."""
EARLY_KEY = pytest.StashKey[dict[int, EarlyFiles]]()
"""Those written when the target started, per scenario number, until their scenario adopts them."""
OPTIONS_KEY = pytest.StashKey[RunValues]()
LEDGER_KEY = pytest.StashKey[SessionsLedger]()
OBSERVER_KEY = pytest.StashKey[CallObserver]()
"""Set by ``ccweb-conformance export``'s recorder: it sees every tool call of every scenario."""
STEP_FAILED_KEY = pytest.StashKey[bool]()
STEP_LOG_KEY = pytest.StashKey[StepLog]()
"""The steps of a scenario that started, on its item."""


class ShouldWarning(UserWarning):
    """A scenario that proves only SHOULD-level requirements failed: a warning, not a failure (``--ccweb-strict``
    makes it one)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--ccweb-*`` options (the CLI sets them for you), declared in the option table."""
    plugin_options(parser.getgroup("ccweb", "ccweb_list_user_inputs conformance").addoption)


@dataclass(frozen=True)
class ResolvedOptions:
    """The values the command line resolved from valid options, handed to the session as a plugin object.

    Plain ``pytest -p ccweb_conformance.suite.plugin --ccweb-...`` has none: the values then
    come from the ``--ccweb-*`` flags.
    """

    values: RunValues


@dataclass(frozen=True)
class GivenWorkspace:
    """The command's workspace, handed to the session as a plugin object: the suite writes into it and sweeps
    it, the command's session closes it (after the fuzz phase, once every process of the run has stopped)."""

    workspace: Workspace


@dataclass(frozen=True)
class GivenContext:
    """The command's run context (``transport/run_context.py``), handed to the session as a plugin object: the
    target, the World and the ledger use it; without one (plain pytest) the target gets a context of its own."""

    context: RunContext


def _given_context(config: pytest.Config) -> RunContext | None:
    return next((p.context for p in config.pluginmanager.get_plugins() if isinstance(p, GivenContext)), None)


def options_from(config: pytest.Config) -> RunValues:
    """The values given to pytest: the command line's object, else those of the ``--ccweb-*`` flags."""
    for plugin in config.pluginmanager.get_plugins():
        if isinstance(plugin, ResolvedOptions):
            return plugin.values
    return resolve_values(from_plugin(config.getoption))


def _flag_problems(config: pytest.Config) -> list[str]:
    """Usage errors in the ``--ccweb-*`` flags (none when the command line resolved the options, valid)."""
    if any(isinstance(plugin, ResolvedOptions) for plugin in config.pluginmanager.get_plugins()):
        return []
    return from_plugin(config.getoption).problems()


def pytest_configure(config: pytest.Config) -> None:
    """Register the scenario tags as markers and prepare the result collector."""
    for requirement in ccweb_spec.requirements():
        config.addinivalue_line("markers", f"{requirement.id}: {requirement.level} {requirement.statement[:60]}")
    for group in ccweb_spec.groups():
        config.addinivalue_line("markers", f"{group.id}: {group.title[:60]}")
    config.addinivalue_line("markers", "should: a scenario that proves only SHOULD-level requirements")
    values = options_from(config)
    config.stash[OPTIONS_KEY] = values
    target = values.target
    collector = ResultCollector(strict=values.selection.strict, source_names=(target.source_env, target.source_header))
    collector.stop_after = values.stop_after
    collector.max_time = values.max_time
    collector.exit_first = values.selection.exitfirst
    collector.deadline = time.monotonic() + values.max_time
    collector.expected = _expected_failures(config)
    config.stash[COLLECTOR_KEY] = collector
    given = next((p.workspace for p in config.pluginmanager.get_plugins() if isinstance(p, GivenWorkspace)), None)
    config.stash[WORKSPACE_KEY] = given or Workspace(target.sessions_dir)
    config.stash[OWNS_WORKSPACE_KEY] = given is None
    config.stash[SOURCES_KEY] = []
    config.stash[AGED_KEY] = []
    config.stash[EARLY_KEY] = {}


def _expected_failures(config: pytest.Config) -> ExpectedFailures | None:
    path = config.stash[OPTIONS_KEY].selection.expected_failures
    return None if path is None else load_expected_failures(path)


@pytest.hookimpl(tryfirst=True)  # before -k and --lf deselect: the collector sees the whole suite
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Note what ``-k`` matches every scenario by (each failure's reproducer is a ``-k`` that selects it
    alone), then apply --ccweb-tags and --ccweb-expected-failures to the suite's scenarios only."""
    for item in items:  # -k ac07 selects the scenarios of ac07_unicode.feature
        if is_scenario(item):
            item.extra_keyword_matches.add(scenario_template(item).feature_file)
    collector = config.stash.get(COLLECTOR_KEY, None)
    if collector is not None:
        collector.suite_keywords = [(p.test_name, p.keywords) for p in map(planned_of, filter(is_scenario, items))]
    selection = config.stash[OPTIONS_KEY].selection
    pasted = pasted_scenarios(selection.keyword, feature_scenarios()) if selection.keyword else None
    if pasted is not None:  # what --co printed, pasted into -k: those scenarios; pytest's -k must not parse it
        config.option.keyword = ""
    wanted = {t.strip().lstrip("@").casefold() for t in selection.tags.split(",")} if selection.tags else None
    expected = _expected_failures(config)
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        if not is_scenario(item):
            kept.append(item)
            continue
        tags = {m.name.casefold() for m in item.iter_markers()}
        if (wanted is not None and not wanted & tags) or (
            pasted is not None and not pasted_match(planned_of(item).nodeid, pasted)
        ):
            deselected.append(item)
            continue
        if expected is not None:  # a scenario entry is strict; requirement entries are judged on the charge
            entry = expected.scenario_entry_for(planned_of(item).nodeid)
            if entry is not None:
                item.add_marker(pytest.mark.xfail(reason=entry.reason, strict=True))
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """Predict the source bindings of the scenarios that will run, and the conversations they want aged, once every
    deselection is done.

    After ``-k`` and ``--ccweb-tags`` alike (``-k`` deselects in pytest's own
    ``pytest_collection_modifyitems``, which may run after this plugin's), so that only the
    stdio processes of scenarios that really run are started early.
    """
    config = session.config
    if OPTIONS_KEY not in config.stash:
        return
    planned = [planned_of(item) for item in session.items if is_scenario(item)]
    scenarios = [(p.template, p.example) for p in planned]
    config.stash[COLLECTOR_KEY].planned = planned
    config.stash[SOURCES_KEY] = upcoming_sources(scenarios, config.stash[WORKSPACE_KEY].prefix)
    config.stash[AGED_KEY] = aged_conversations([(p.template, p.example, p.nodeid) for p in planned])


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
    collector = session.config.stash.get(COLLECTOR_KEY, None)
    if collector is None:
        return
    state = signals.current()
    name = state.name if state is not None and state.interrupted else None
    collector.finish(f"not run: the run was interrupted by {name}" if name else "not run: the run stopped early")


def _step_log(request: pytest.FixtureRequest) -> StepLog | None:
    node: pytest.Item = request.node
    return node.stash.get(STEP_LOG_KEY, None)


def _logged(step: Any) -> LoggedStep:
    """A pytest-bdd step as the step log keeps it."""
    table = step.datatable
    rows = None if table is None else tuple(tuple(str(c) for c in row) for row in table.raw())
    return LoggedStep(step.keyword, step.name, step.line_number or 0, rows, step.docstring)


def pytest_bdd_before_scenario(request: pytest.FixtureRequest, feature: Any, scenario: Any) -> None:
    """A scenario of the kit's features starts: its steps are logged from here (pytest-bdd's public hooks)."""
    del feature
    if COLLECTOR_KEY in request.config.stash and is_scenario(request.node):
        request.node.stash[STEP_LOG_KEY] = StepLog([_logged(step) for step in scenario.steps])


def pytest_bdd_before_step(request: pytest.FixtureRequest, step: Any, **_ignored: Any) -> None:
    """A step starts."""
    log = _step_log(request)
    if log is not None:
        log.started(_logged(step))


def pytest_bdd_after_step(request: pytest.FixtureRequest, **_ignored: Any) -> None:
    """A step passed."""
    log = _step_log(request)
    if log is not None:
        log.passed()


def pytest_bdd_step_error(request: pytest.FixtureRequest, **_ignored: Any) -> None:
    """A step failed: its failure is the scenario's (pytest-bdd calls the after-scenario hook all the same)."""
    request.node.stash[STEP_FAILED_KEY] = True
    log = _step_log(request)
    if log is not None:
        log.failed()


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


def _listable_or_exit(sessions_dir: Path, collector: ResultCollector) -> None:
    """Stop the run (exit 2, one line) when the runner cannot list the sessions directory: its environment, not RO-2."""
    problem = unlistable(sessions_dir)
    if problem is not None:
        collector.startup_error = problem
        pytest.exit(problem, returncode=2)


@pytest.fixture(scope="session")
def ccweb_target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The implementation under test, started once per run; stopped and cleaned up on every path."""
    problems = _flag_problems(request.config)
    if problems:
        raise pytest.UsageError("; ".join(problems))
    spec = request.config.stash[OPTIONS_KEY].target
    collector = request.config.stash[COLLECTOR_KEY]
    workspace = request.config.stash[WORKSPACE_KEY]
    owned = request.config.stash[OWNS_WORKSPACE_KEY]
    target: Target | None = None
    context = _given_context(request.config) or RunContext()  # plain pytest: one of the session's own
    try:
        sessions_dir = workspace.open()
        _listable_or_exit(sessions_dir, collector)
        ledger = SessionsLedger(sessions_dir, own_prefix=workspace.judged_prefix, waits=context.waits)
        request.config.stash[LEDGER_KEY] = ledger
        _start_ageing(request.config, workspace, ledger)
        target = make_target(spec, sessions_dir, context, decoy_source=decoy_id(workspace.prefix))
        target.client(None)  # start it now: a target that cannot start stops the run (exit code 2)
        collector.note_eras(target)
        upcoming: list[str | None] = request.config.stash[SOURCES_KEY]
        target.prepare(upcoming)  # start the stdio processes of later source bindings early
    except HandshakeViolation as error:
        if target is not None:
            collector.describe(target, started_at=datetime.now(UTC).isoformat(timespec="seconds"))
        _clean_up(target, workspace, owned=owned)
        collector.handshake_failed(error)
        pytest.exit(f"the implementation broke the protocol during the handshake: {error}", returncode=1)
    except TargetError as error:
        _clean_up(target, workspace, owned=owned)
        limit = limits.process_limit_problem(error, exhausted=context.exhausted)  # for want of a thread: the runner's
        collector.startup_error = limit or (str(error).splitlines()[0] if str(error) else type(error).__name__)
        pytest.exit(limit or f"the implementation could not be started or reached: {error}", returncode=2)
    except BaseException:
        _clean_up(target, workspace, owned=owned)
        raise
    collector.describe(target, started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    collector.bundled_reference = not (spec.stdio or spec.url or spec.http_cmd)
    try:
        yield target
    finally:
        try:
            _final_audit(ledger, target, collector)
        finally:  # whatever failed there (no thread left to stop the servers with): stopped and removed all the same
            _clean_up(target, workspace, owned=owned)
            if _given_context(request.config) is None:  # plain pytest: the fork server of the target's own context
                context.fork_server.stop()
    _fail_on_audit(collector)


def _fail_on_audit(collector: ResultCollector) -> None:
    """A failed whole-run audit fails the pytest run: an error at the last scenario's teardown, with its message."""
    audit = collector.audit_failure()
    if audit is not None:
        pytest.fail(audit, pytrace=False)


def _start_ageing(config: pytest.Config, workspace: Workspace, ledger: SessionsLedger) -> None:
    """Write the conversations scenarios want aged, so they age while the target starts and earlier scenarios
    run (``suite/ageing.py``). Not for a recorded export: its cases hold only what their scenario wrote."""
    if config.stash.get(OBSERVER_KEY, None) is not None:
        return
    planned = config.stash[AGED_KEY]
    early = config.stash[EARLY_KEY] = write_early(workspace, planned)
    for made in early.values():
        ledger.register(made.files)


def _final_audit(ledger: SessionsLedger, target: Target, collector: ResultCollector) -> None:
    """The whole run's audit (``ResultCollector.final_audit``), shielded from signals."""
    with signals.shielded():
        collector.final_audit(ledger, target)


def _clean_up(target: Target | None, workspace: Workspace, *, owned: bool) -> None:
    """Stop the target's processes; sweep the run's entries (and close the workspace when the plugin made it)."""
    with signals.shielded():
        try:
            if target is not None:
                target.close()
        finally:
            if owned:
                workspace.close()
            else:
                workspace.sweep()


@pytest.fixture(scope="session")
def ccweb_output_schema(ccweb_target: Target) -> dict[str, Any] | None:
    """The tool's declared outputSchema, listed once per run, for PLC-4."""
    return declared_output_schema(ccweb_target)


@pytest.fixture(scope="session")
def ccweb_run_prefix(request: pytest.FixtureRequest) -> str:
    """This run's ID prefix for conversation files."""
    return request.config.stash[WORKSPACE_KEY].prefix


@pytest.fixture(scope="session")
def ccweb_decoy_id(ccweb_target: Target, ccweb_run_prefix: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """A valid conversation shared by the run, bound as source where a scenario must not fall back.

    Shared so that stdio scenarios needing "some other valid source" reuse one server process.
    """
    del ccweb_target  # the workspace's directory is made, and the server started, before the decoy is written
    files = request.config.stash[WORKSPACE_KEY].part(SHARED_PREFIX)
    ledger = request.config.stash[LEDGER_KEY]
    ledger.register(files)
    decoy = files.new_id(DECOY_ALIAS)
    assert decoy == decoy_id(ccweb_run_prefix)
    files.write_session(decoy, cc_web_session(decoy, [{"role": "user", "content": "decoy", "timestamp": None}]))
    try:
        yield decoy
    finally:
        files.remove_all()
        ledger.unregister(files)


@pytest.fixture
def world(
    ccweb_target: Target,
    ccweb_output_schema: dict[str, Any] | None,
    request: pytest.FixtureRequest,
) -> Iterator[World]:
    """A scenario's state; its conversation files are removed when it ends."""
    collector = request.config.stash[COLLECTOR_KEY]
    files = scenario_files(
        request.config.stash[EARLY_KEY], collector.next_scenario_number(), planned_of(request.node).nodeid,
        request.config.stash[WORKSPACE_KEY], request.config.stash[LEDGER_KEY],
    )
    ledger = request.config.stash[LEDGER_KEY]
    state = World(ccweb_target, files, ledger=ledger, output_schema=ccweb_output_schema)
    state.requirements = planned_of(request.node).requirements
    state.observer = request.config.stash.get(OBSERVER_KEY, None)
    if state.observer is not None:
        state.observer.started(state)
    collector.attach(planned_of(request.node), state)
    try:
        yield state
    finally:
        for cleanup in reversed(state.cleanups):
            cleanup()
        ledger.retire(files)  # kept, fingerprinted, until the whole-run audit; removed after it
