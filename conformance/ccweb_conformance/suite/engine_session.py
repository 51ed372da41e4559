"""Runs the selected scenarios on the runner's own engine (no pytest) and hands back what it collected.

The target is started once, on the main thread (a signal interrupts its start-up at once); each scenario
runs on a World of its own through ``engine/executor.py``; the collector judges each one
(``suite/collector.py``); every path, an interrupt included, ends with the run's audit and clean-up.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial

from ccweb_conformance.checks.oracle import pristine_reference
from ccweb_conformance.engine.executor import run_scenario
from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.engine.scenarios import Scenario
from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.lanes import claims, lane_steps, run_in_lanes
from ccweb_conformance.suite.lookahead import scenario_sources
from ccweb_conformance.suite.plan_selection import Chosen, choose
from ccweb_conformance.suite.planned import PlannedScenario, ScenarioRun, plan_scenarios
from ccweb_conformance.suite.progress import Progress
from ccweb_conformance.suite.recorder import EXPORT_RUN_PREFIX, CaseRecorder
from ccweb_conformance.suite.scenario_index import bundled_features, feature_scenarios
from ccweb_conformance.suite.stage import Stage
from ccweb_conformance.suite.step_log import StepLog
from ccweb_conformance.suite.world import World, raise_era_disagreement
from ccweb_conformance.transport import limits, signals
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import RunValues

__all__ = ["collect", "run_suite"]


def collect(
    values: RunValues, only: Collection[str] = (), features: Sequence[FeatureScenario] | None = None
) -> tuple[ResultCollector, Chosen]:
    """The collector and the scenarios the values select, nothing run (``run --collect-only``, and every run);
    ``features``: the features as the command parsed them (else parsed here)."""
    steps.load()
    features = bundled_features() if features is None else features
    plan = plan_scenarios(features)
    collector = ResultCollector.of(values)
    collector.suite_keywords = [(p.test_name, p.keywords) for p, _ in plan]
    chosen = choose(values.selection, plan, feature_scenarios(features), only=only, expected=collector.expected)
    collector.planned = [p for p, _, _ in chosen]
    return collector, chosen


@dataclass
class _Run:
    """One run's state, passed down: values, collector, what its scenarios play on, ``export``'s recorder."""

    values: RunValues
    collector: ResultCollector
    stage: Stage
    recorder: CaseRecorder | None
    progress: Progress

    def provide(self, name: str) -> object:
        """What a step asks for beyond its world: the run's shared decoy conversation."""
        if name != "ccweb_decoy_id":
            raise LookupError(f"a step asks for {name!r}, which this run does not provide")
        return self.stage.decoy_id()


def run_suite(
    values: RunValues,
    *,
    live: bool,
    context: RunContext,
    only: Collection[str] = (),
    workspace: Workspace | None = None,
    quiet: bool = False,
    recorder: CaseRecorder | None = None,
    features: Sequence[FeatureScenario] | None = None,
) -> ResultCollector:
    """Run the scenarios ``values`` select against the target they name, in the run of ``context``, in ``workspace``
    (else one of the suite's own);
    ``only``: the names ``--last-failed`` keeps; ``quiet``: no progress line; ``recorder``: ``export``'s;
    ``features``: as the command parsed them. The collector holds the results, or why the target could not start."""
    collector, chosen = collect(values, only, features)
    owned = workspace is None or recorder is not None
    if recorder is not None:
        workspace = Workspace(None, prefix=EXPORT_RUN_PREFIX)
    elif workspace is None:
        workspace = Workspace(values.target.sessions_dir)
    progress = Progress(verbose=values.verbose, live=live, log=not quiet)
    run = _Run(values, collector, Stage(context, workspace, owned), recorder, progress)
    run.progress.planned(len(chosen))
    try:
        _run(run, chosen)
    finally:
        run.progress.counter.finish()  # the progress line ended
    return collector


def _run(run: _Run, chosen: Chosen) -> None:
    """Start the target, run every chosen scenario, audit, clean up; an interrupt leaves the rest not run."""
    collector = run.collector
    reason = "not run: the run stopped early"
    try:
        if run.stage.start(run.values.target, collector, age=run.recorder is None) is not None:
            return
        alone = run.recorder is not None or len(chosen) < 2  # export's cases are recorded in order
        jobs = 1 if alone else limits.workers_allowed(min(run.values.jobs, len(chosen)))
        if jobs > 1:
            _run_together(run, chosen, jobs)
            return
        for planned, scenario, expected in chosen:  # --jobs 1: one after another, in the planned order
            signals.raise_if_lost()
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
        run.stage.end(collector)


def _run_together(run: _Run, chosen: Chosen, jobs: int) -> None:
    """The scenarios on up to ``jobs`` threads, in lanes (``suite/lanes.py``); each judged here in the planned order,
    none past a stop a verdict decided (not run, as one after another)."""
    target = run.stage.target
    assert target is not None
    pristine_reference()  # the oracle's private copies are made by swapping sys.modules: once, before any worker
    texts = [p.steps for p, _, _ in chosen]
    planned = claims(texts, scenario_sources(texts, run.stage.workspace.prefix), lane_steps())
    unbound = sum(None in claim.sources and claim.alone is None for claim in planned)
    for lane in range(1, min(jobs, unbound)):  # the unbound scenarios, most of the suite, run in every lane
        target.prepare([None], lane)

    def begin(index: int, lanes: tuple[int, ...]) -> Callable[[], _Begun]:
        begun = _begin(run, index + 1, *chosen[index])
        if begun.world is not None:
            begun.world.lane, begun.world.spread = lanes[0], lanes[1:]
        return partial(_execute, run, begun)

    run_in_lanes(
        planned,
        jobs,
        begin=begin,
        finish=lambda _, ended: None if run.collector.stopped_by_verdict() else _judge(run, ended),
        stopped=lambda: run.collector.check_stop() is not None,
        unstarted=lambda error: run.stage.context.exhausted.append(f"{type(error).__name__}: {error}"),
        abort=target.close,
    )


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
    """Scenario ``number``'s files and World, on the run's thread (a failed set-up is the scenario's failure)."""
    log, started = StepLog(list(scenario.steps)), time.perf_counter()
    begun = _Begun(planned, scenario, expected, run.stage.files(number, planned), log, started)
    try:
        begun.world = run.stage.world(planned, begun.made, run.collector, run.recorder)
    except Exception as failure:
        begun.error = failure
    return begun


def _execute(run: _Run, begun: _Begun) -> _Begun:
    """The scenario's steps on its World (on a worker under ``--jobs``); its files retired whatever happened."""
    world = begun.world
    try:
        if world is not None:
            outcome = run_scenario(begun.scenario, STEPS, world, observer=begun.log, provide=run.provide)
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
        run.stage.retire(world, begun.made)
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
