"""Runs the selected scenarios on the runner's own engine (no pytest) and hands back what it collected.

The target is started once, on the main thread (a signal interrupts its start-up at once); each scenario
runs on a World of its own through ``engine/executor.py``; the collector judges each one
(``suite/collector.py``); every path, an interrupt included, ends with the run's audit and clean-up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.ledger import SessionsLedger, unlistable
from ccweb_conformance.checks.oracle import pristine_reference
from ccweb_conformance.engine.executor import Observer, StepSkipped, run_scenario
from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.engine.scenarios import Scenario, Step
from ccweb_conformance.errors import HandshakeViolation, TargetError
from ccweb_conformance.fixtures.conversations import ConversationFiles, cc_web_session
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.ageing import EarlyFiles, scenario_files, write_early
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.lanes import claims, lane_steps, run_in_lanes
from ccweb_conformance.suite.lookahead import (
    DECOY_ALIAS,
    SHARED_PREFIX,
    aged_conversations,
    decoy_id,
    scenario_sources,
    upcoming_sources,
)
from ccweb_conformance.suite.plan_selection import Chosen, choose
from ccweb_conformance.suite.planned import PlannedScenario, ScenarioRun, plan_scenarios
from ccweb_conformance.suite.progress import Progress
from ccweb_conformance.suite.recorder import EXPORT_RUN_PREFIX, CaseRecorder
from ccweb_conformance.suite.step_log import LoggedStep, StepLog
from ccweb_conformance.suite.world import World, declared_output_schema, raise_era_disagreement
from ccweb_conformance.transport import limits, signals
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import RunValues

__all__ = ["SuiteOutcome", "collect", "run_suite"]

FEATURES = Path(str(files("ccweb_features")))


@dataclass
class SuiteOutcome:
    """What a suite run left: its collector, or why it could not run."""

    collector: ResultCollector | None
    startup_error: str | None
    """Why the implementation could not be started or reached."""
    broken: str | None = None
    """Why the suite itself could not run."""


def _collector(values: RunValues) -> ResultCollector:
    target, selection = values.target, values.selection
    collector = ResultCollector(strict=selection.strict, source_names=(target.source_env, target.source_header))
    collector.stop_after = values.stop_after
    collector.max_time = values.max_time
    collector.exit_first = selection.exitfirst
    collector.deadline = time.monotonic() + values.max_time
    path = selection.expected_failures
    collector.expected = None if path is None else load_expected_failures(path)
    return collector


def collect(values: RunValues, only: Collection[str] = ()) -> tuple[ResultCollector, Chosen]:
    """The collector and the scenarios the values select, nothing run (``run --collect-only``, and every run)."""
    steps.load()
    plan = plan_scenarios(FEATURES)
    collector = _collector(values)
    collector.suite_keywords = [(p.test_name, p.keywords) for p, _ in plan]
    chosen = choose(values.selection, plan, only=only, expected=collector.expected)
    collector.planned = [p for p, _, _ in chosen.scenarios]
    return collector, chosen


class _StepWatch(Observer):
    """The executor's callbacks written into the scenario's step log (a skipping step stays as it began)."""

    def __init__(self, log: StepLog) -> None:
        self.log = log

    def before_step(self, step: Step) -> None:
        self.log.started(_logged(step))

    def after_step(self, step: Step) -> None:
        self.log.passed()

    def step_error(self, step: Step, error: BaseException) -> None:
        if not isinstance(error, StepSkipped):
            self.log.failed()


def _logged(step: Step) -> LoggedStep:
    return LoggedStep(step.keyword, step.text, step.line, step.datatable, step.docstring)


@dataclass
class _Run:
    """One run's state, passed down: values, collector, workspace, ledger, target, and what scenarios share."""

    values: RunValues
    context: RunContext
    collector: ResultCollector
    workspace: Workspace
    owned: bool
    recorder: CaseRecorder | None
    progress: Progress
    ledger: SessionsLedger | None = None
    target: Target | None = None
    early: dict[int, EarlyFiles] = field(default_factory=dict)
    decoy: tuple[str, ConversationFiles] | None = None
    schema: dict[str, Any] | None = None
    schema_listed: bool = False
    """The tool's declared outputSchema is listed once, when the first scenario starts (PLC-4)."""
    started: bool = False
    """The target started and answered: the run's audit judges what it did."""
    decoy_lock: threading.Lock = field(default_factory=threading.Lock)
    """One decoy, however many scenarios running together ask for it."""

    def provide(self, name: str) -> object:
        """What a step asks for beyond its world: the run's shared decoy conversation."""
        if name != "ccweb_decoy_id":
            raise LookupError(f"a step asks for {name!r}, which this run does not provide")
        with self.decoy_lock:
            return self._decoy()

    def _decoy(self) -> str:
        if self.decoy is None:
            assert self.ledger is not None
            part = self.workspace.part(SHARED_PREFIX)
            self.ledger.register(part)
            decoy = part.new_id(DECOY_ALIAS)
            part.write_session(decoy, cc_web_session(decoy, [{"role": "user", "content": "decoy", "timestamp": None}]))
            self.decoy = (decoy, part)
        return self.decoy[0]


def run_suite(
    values: RunValues,
    *,
    live: bool,
    context: RunContext,
    only: Collection[str] = (),
    workspace: Workspace | None = None,
    quiet: bool = False,
    recorder: CaseRecorder | None = None,
) -> SuiteOutcome:
    """Run the scenarios ``values`` select against the target they name, in the run of ``context``, in ``workspace``
    (else one of the suite's own);
    ``only``: the names ``--last-failed`` keeps; ``quiet``: no progress line; ``recorder``: ``export``'s."""
    collector, chosen = collect(values, only)
    owned = workspace is None or recorder is not None
    if recorder is not None:
        workspace = Workspace(None, prefix=EXPORT_RUN_PREFIX)
    elif workspace is None:
        workspace = Workspace(values.target.sessions_dir)
    progress = Progress(verbose=values.verbose, live=live, log=not quiet)
    run = _Run(values, context, collector, workspace, owned, recorder, progress)
    run.progress.planned(len(chosen.scenarios))
    try:
        _run(run, chosen)
    finally:
        run.progress.finish()
    return SuiteOutcome(collector, collector.startup_error)


def _run(run: _Run, chosen: Chosen) -> None:
    """Start the target, run every chosen scenario, audit, clean up; an interrupt leaves the rest not run."""
    collector = run.collector
    reason = "not run: the run stopped early"
    try:
        if not _start(run, chosen):
            return
        alone = run.recorder is not None or len(chosen.scenarios) < 2  # export's cases are recorded in order
        jobs = 1 if alone else limits.workers_allowed(min(run.values.jobs, len(chosen.scenarios)))
        if jobs > 1:
            _run_together(run, chosen, jobs)
            return
        for planned, scenario, expected in chosen.scenarios:  # --jobs 1: one after another, in the planned order
            stop = collector.check_stop()
            if stop is not None:
                collector.record_not_run(planned, stop)
                continue
            _judge(run, _execute(run, _begin(run, collector.next_scenario_number(), planned, scenario, expected)))
    except KeyboardInterrupt:  # a signal (RunInterrupted): what did not run is recorded, the run is cleaned up
        state = signals.current()
        name = state.name if state is not None and state.interrupted else "SIGINT"
        reason = f"not run: the run was interrupted by {name}"
    finally:
        collector.finish(reason)
        collector.order_as_planned()
        _end(run)


def _run_together(run: _Run, chosen: Chosen, jobs: int) -> None:
    """The scenarios on up to ``jobs`` threads, in lanes (``suite/lanes.py``); each judged here in the planned order,
    none past a stop a verdict decided (not run, as one after another)."""
    assert run.target is not None
    pristine_reference()  # the oracle's private copies are made by swapping sys.modules: once, before any worker
    templates = [(p.template, p.example) for p, _, _ in chosen.scenarios]
    texts = [[step.text for step in scenario.steps] for _, scenario, _ in chosen.scenarios]
    planned = claims(texts, scenario_sources(templates, run.workspace.prefix), lane_steps())
    unbound = sum(None in claim.sources and claim.alone is None for claim in planned)
    for lane in range(1, min(jobs, unbound)):  # the unbound scenarios, most of the suite, run in every lane
        run.target.prepare([None], lane)

    def begin(index: int, lanes: tuple[int, ...]) -> Callable[[], _Begun]:
        begun = _begin(run, index + 1, *chosen.scenarios[index])
        if begun.world is not None:
            begun.world.lane, begun.world.spread = lanes[0], lanes[1:]
        return partial(_execute, run, begun)

    run_in_lanes(
        planned,
        jobs,
        begin=begin,
        finish=lambda _, ended: None if run.collector.stopped_by_verdict() else _judge(run, ended),
        stopped=lambda: run.collector.check_stop() is not None,
        unstarted=lambda error: run.context.exhausted.append(f"{type(error).__name__}: {error}"),
        abort=run.target.close,
    )


def _start(run: _Run, chosen: Chosen) -> bool:
    """Open the workspace, write the conversations that must age, start the target; False when the run cannot go on."""
    spec, collector, workspace = run.values.target, run.collector, run.workspace
    try:
        sessions_dir = workspace.open()
        problem = unlistable(sessions_dir)
        if problem is not None:  # the runner's environment, not RO-2: exit 2
            collector.startup_error = problem
            return False
        run.ledger = SessionsLedger(sessions_dir, own_prefix=workspace.judged_prefix, waits=run.context.waits)
        planned = [p for p, _, _ in chosen.scenarios]
        if run.recorder is None:  # a recorded export's cases hold only what their scenario wrote
            run.early = write_early(workspace, aged_conversations([(p.template, p.example, p.nodeid) for p in planned]))
            for made in run.early.values():
                run.ledger.register(made.files)
        run.target = make_target(spec, sessions_dir, run.context, decoy_source=decoy_id(workspace.prefix))
        run.target.client(None)  # start it now: a target that cannot start stops the run (exit code 2)
        collector.note_eras(run.target)
        run.target.prepare(upcoming_sources([(p.template, p.example) for p in planned], workspace.prefix))
    except HandshakeViolation as error:
        if run.target is not None:
            collector.describe(run.target, started_at=datetime.now(UTC).isoformat(timespec="seconds"))
        collector.handshake_failed(error)
        return False
    except TargetError as error:
        limit = limits.process_limit_problem(error, exhausted=run.context.exhausted)  # no thread: the runner's limit
        collector.startup_error = limit or (str(error).splitlines()[0] if str(error) else type(error).__name__)
        return False
    collector.describe(run.target, started_at=datetime.now(UTC).isoformat(timespec="seconds"))
    collector.bundled_reference = not (spec.stdio or spec.url or spec.http_cmd)
    run.started = True
    return True


@dataclass
class _Begun:
    """A scenario under way: what it runs on, and what its run left so far."""

    planned: PlannedScenario
    scenario: Scenario
    expected: str | None
    made: ConversationFiles
    log: StepLog
    started: float
    world: World | None = None
    error: BaseException | None = None
    skipped: str | None = None
    took: float = 0.0


def _begin(run: _Run, number: int, planned: PlannedScenario, scenario: Scenario, expected: str | None) -> _Begun:
    """Scenario ``number``'s files and World (its place in the planned order, 1-based, its conversation IDs'
    prefix), on the run's thread (a failed set-up is the scenario's failure)."""
    assert run.target is not None and run.ledger is not None
    log = StepLog([_logged(step) for step in scenario.steps])
    started = time.perf_counter()
    made = scenario_files(run.early, number, planned.nodeid, run.workspace, run.ledger)
    begun = _Begun(planned, scenario, expected, made, log, started)
    try:
        if not run.schema_listed:
            run.schema, run.schema_listed = declared_output_schema(run.target), True
        world = World(run.target, begun.made, ledger=run.ledger, output_schema=run.schema)
        world.requirements = planned.requirements
        world.observer = run.recorder
        if run.recorder is not None:
            run.recorder.started(world)
        run.collector.attach(planned, world)
        begun.world = world
    except Exception as failure:
        begun.error = failure
    return begun


def _execute(run: _Run, begun: _Begun) -> _Begun:
    """The scenario's steps on its World (on a worker under ``--jobs``); its files retired whatever happened."""
    assert run.ledger is not None
    world = begun.world
    try:
        if world is not None:
            outcome = run_scenario(begun.scenario, STEPS, world, observer=_StepWatch(begun.log), provide=run.provide)
            ended = next((s for s in outcome.steps if s.status != "passed"), None)
            if ended is not None and ended.status == "skipped" and ended.error is not None:
                begun.skipped = str(ended.error)
            elif ended is not None:
                begun.error = ended.error
            else:
                raise_era_disagreement(world)  # every step passed: the eras' answers must agree (D-16)
    except Exception as failure:  # the eras' check: the scenario's failure
        begun.error = failure
    finally:
        if world is not None:
            for cleanup in reversed(world.cleanups):
                cleanup()
        run.ledger.retire(begun.made)  # kept, fingerprinted, until the whole-run audit; removed after it
    begun.took = time.perf_counter() - begun.started
    return begun


def _judge(run: _Run, begun: _Begun) -> None:
    """The ended scenario judged, recorded for export when asked, counted in the progress line (the run's thread)."""
    error, skipped, collector = begun.error, begun.skipped, run.collector
    if run.recorder is not None:
        run.recorder.finished(begun.planned, "skipped" if skipped else "failed" if error else "passed", begun.world)
    run_left = ScenarioRun(error, skipped, begun.took, tuple(begun.log.results()), begun.expected)
    status = collector.observe(begun.planned, run_left)
    run.progress.ended(collector.results[-1] if status is not None else None)


def _end(run: _Run) -> None:
    """The shared decoy removed, the whole-run audit, the target stopped, the workspace swept (or closed)."""
    with signals.shielded():
        try:
            if run.decoy is not None and run.ledger is not None:
                run.decoy[1].remove_all()
                run.ledger.unregister(run.decoy[1])
            if run.started and run.ledger is not None and run.target is not None:
                run.collector.final_audit(run.ledger, run.target)
        finally:
            try:
                if run.target is not None:
                    run.target.close()
            finally:
                if run.owned:
                    run.workspace.close()
                else:
                    run.workspace.sweep()
