"""pytest plugin (entry point ``pytest11``): runs the features against a target.

Inert unless the conformance suite is collected: it only adds ``--ccweb-*`` options and
fixtures, and its hooks touch nothing but the suite's own scenarios.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Generator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import ccweb_spec
from ccweb_conformance.contract.conversations import ConversationFiles, cc_web_session, new_run_prefix
from ccweb_conformance.errors import HandshakeViolation, TargetError
from ccweb_conformance.options import RunnerOptions, from_plugin, plugin_options
from ccweb_conformance.suite.collector import (
    ResultCollector,
    example_row,
    is_scenario,
    scenario_requirements,
    scenario_template,
)
from ccweb_conformance.suite.expected_failures import ExpectedFailures, load_expected_failures
from ccweb_conformance.suite.lookahead import DECOY_ALIAS, SHARED_PREFIX, predicted_sources, scenario_prefix
from ccweb_conformance.suite.world import World
from ccweb_conformance.transport import signals
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.targets import Target

COLLECTOR_KEY = pytest.StashKey[ResultCollector]()
RUN_PREFIX_KEY = pytest.StashKey[str]()
SOURCES_KEY = pytest.StashKey[list[str | None]]()
OPTIONS_KEY = pytest.StashKey[RunnerOptions]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--ccweb-*`` options (the CLI sets them for you), declared in the option table."""
    plugin_options(parser.getgroup("ccweb", "ccweb_list_user_inputs conformance").addoption)


def options_from(config: pytest.Config) -> RunnerOptions:
    """The runner options given to pytest."""
    return from_plugin(config.getoption)


def pytest_configure(config: pytest.Config) -> None:
    """Register the scenario tags as markers and prepare the result collector."""
    for requirement in ccweb_spec.requirements():
        config.addinivalue_line("markers", f"{requirement.id}: {requirement.level} {requirement.statement[:60]}")
    for group in ccweb_spec.groups():
        config.addinivalue_line("markers", f"{group.id}: {group.title[:60]}")
    config.addinivalue_line("markers", "should: a scenario that proves only SHOULD-level requirements")
    options = options_from(config)
    config.stash[OPTIONS_KEY] = options
    collector = ResultCollector(strict=options.strict)
    collector.stop_after = options.stop_after
    collector.max_time = options.max_time
    collector.deadline = time.monotonic() + options.max_time
    config.stash[COLLECTOR_KEY] = collector
    config.stash[RUN_PREFIX_KEY] = new_run_prefix()
    config.stash[SOURCES_KEY] = []


def _expected_failures(config: pytest.Config) -> ExpectedFailures | None:
    path = config.stash[OPTIONS_KEY].expected_failures
    return None if path is None else load_expected_failures(path)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Apply --ccweb-tags and --ccweb-expected-failures to the suite's scenarios only."""
    options = config.stash[OPTIONS_KEY]
    wanted = {t.strip().lstrip("@") for t in options.tags.split(",")} if options.tags else None
    expected = _expected_failures(config)
    kept: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        if not is_scenario(item):
            kept.append(item)
            continue
        tags = {m.name for m in item.iter_markers()}
        if wanted is not None and not wanted & tags:
            deselected.append(item)
            continue
        if expected is not None:
            reason = expected.reason_for(ResultCollector.nodeid_of(item), scenario_requirements(item))
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
        kept.append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = kept
    config.stash[COLLECTOR_KEY].planned = [item for item in kept if is_scenario(item)]
    scenarios = [(scenario_template(item), example_row(item)) for item in kept if is_scenario(item)]
    config.stash[SOURCES_KEY] = predicted_sources(scenarios, config.stash[RUN_PREFIX_KEY])


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
    collector.record_not_run(item, reason)
    return True


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every selected scenario that did not run (interrupt, a stop) is recorded as not run."""
    collector = session.config.stash.get(COLLECTOR_KEY, None)
    if collector is None:
        return
    state = signals.current()
    name = state.name if state is not None and state.interrupted else None
    collector.finish(f"not run: the run was interrupted by {name}" if name else "not run: the run stopped early")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Record each scenario; a failed SHOULD-only scenario becomes a warning unless strict."""
    report: pytest.TestReport = yield
    if is_scenario(item):
        item.config.stash[COLLECTOR_KEY].observe(item, call, report)
    return report


@pytest.fixture(scope="session")
def ccweb_target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The implementation under test, started once per run."""
    options = request.config.stash[OPTIONS_KEY]
    problems = options.problems()
    if problems:
        raise pytest.UsageError("; ".join(problems))
    collector = request.config.stash[COLLECTOR_KEY]
    run_prefix = request.config.stash[RUN_PREFIX_KEY]
    own_dir: Path | None = None
    target: Target | None = None
    try:
        own_dir = None if options.sessions_dir is not None else Path(tempfile.mkdtemp(prefix="ccweb-conformance-"))
        sessions_dir = options.sessions_dir or own_dir
        assert sessions_dir is not None
        target = make_target(options, sessions_dir)
        target.client(None)  # start it now: a target that cannot start stops the run (exit code 2)
        upcoming: list[str | None] = request.config.stash[SOURCES_KEY]
        target.prepare(upcoming)  # start the stdio processes of later source bindings early
    except HandshakeViolation as error:
        if target is not None:
            collector.describe(target, started_at=datetime.now(UTC).isoformat(timespec="seconds"), clock=0.0)
        _clean_up(target, own_dir, options.sessions_dir, run_prefix)
        collector.handshake_failed(error)
        pytest.exit(f"the implementation broke the protocol during the handshake: {error}", returncode=1)
    except TargetError as error:
        _clean_up(target, own_dir, options.sessions_dir, run_prefix)
        collector.startup_error = str(error).splitlines()[0] if str(error) else type(error).__name__
        pytest.exit(f"the implementation could not be started or reached: {error}", returncode=2)
    except BaseException:
        _clean_up(target, own_dir, options.sessions_dir, run_prefix)
        raise
    collector.describe(target, started_at=datetime.now(UTC).isoformat(timespec="seconds"), clock=time.perf_counter())
    try:
        yield target
    finally:
        _clean_up(target, own_dir, options.sessions_dir, run_prefix)


def _clean_up(target: Target | None, own_dir: Path | None, sessions_dir: Path | None, run_prefix: str) -> None:
    """Stop the target's processes; remove the run's own directory, or its own files in DIR."""
    with signals.shielded():
        try:
            if target is not None:
                target.close()
        finally:
            if own_dir is not None:
                shutil.rmtree(own_dir, ignore_errors=True)
            if sessions_dir is not None:
                remove_run_files(sessions_dir, run_prefix)


def remove_run_files(sessions_dir: Path, run_prefix: str) -> None:
    """Remove what is left of this run's conversation files in a directory that is not ours."""
    try:
        names = [name for name in os.listdir(sessions_dir) if name.startswith(f"{run_prefix}-")]
    except OSError:
        return
    for name in names:
        path = sessions_dir / name
        if path.is_symlink() or not path.is_dir():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def ccweb_run_prefix(request: pytest.FixtureRequest) -> str:
    """This run's ID prefix for conversation files."""
    return request.config.stash[RUN_PREFIX_KEY]


@pytest.fixture(scope="session")
def ccweb_decoy_id(ccweb_target: Target, ccweb_run_prefix: str) -> Iterator[str]:
    """A valid conversation shared by the run, bound as source where a scenario must not fall back.

    Shared so that stdio scenarios needing "some other valid source" reuse one server process.
    """
    files = ConversationFiles(ccweb_target.sessions_dir, f"{ccweb_run_prefix}-{SHARED_PREFIX}")
    decoy_id = files.new_id(DECOY_ALIAS)
    files.write_session(decoy_id, cc_web_session(decoy_id, [{"role": "user", "content": "decoy", "timestamp": None}]))
    try:
        yield decoy_id
    finally:
        files.remove_all()


@pytest.fixture
def world(ccweb_target: Target, ccweb_run_prefix: str, request: pytest.FixtureRequest) -> Iterator[World]:
    """A scenario's state; its conversation files are removed when it ends."""
    collector = request.config.stash[COLLECTOR_KEY]
    files = ConversationFiles(
        ccweb_target.sessions_dir, scenario_prefix(ccweb_run_prefix, collector.next_scenario_number())
    )
    state = World(ccweb_target, files)
    collector.attach(request.node, state)
    try:
        yield state
    finally:
        files.remove_all()
