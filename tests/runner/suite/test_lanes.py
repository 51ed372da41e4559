"""Which scenarios run together under --jobs (suite/lanes.py): claims, lanes, and the loop's stop."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import weakref

import pytest
from paths import REPO
from runner.engine.parsed import parse_feature

from ccweb_conformance.cli import main
from ccweb_conformance.engine.features import parse_features
from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.suite.lanes import Claim, Lanes, claims, lane_steps, run_in_lanes, run_order
from ccweb_conformance.suite.world import _interleaved
from ccweb_conformance.transport import signals
from ccweb_conformance.values import resolve_values

FEATURES = REPO / "features" / "ccweb_features"
ALONE = {
    "ac09_read_only.feature": [
        "A successful call changes nothing",
        "A call by the source conversation changes nothing",
        "Failing calls change nothing either",
        "Many calls in a row change nothing",
        "A file of an older shape is read, never migrated",
    ],
    "concurrency.feature": ["Four agents calling at once each read their own source conversation"],
    "protocol.feature": ["The server exits promptly once its standard input ends"],
}
APART = {
    "store.feature": [
        "A call during a non-atomic save answers the saved conversation or conversation_unreadable",
        "A call during a non-atomic save that completes within 200 ms is never unreadable",
    ],
}
WIDE = {
    "store.feature": [
        "A file that is not a UTF-8 JSON object is unreadable",
        "messages that is not an array, null or absent is unreadable",
        "Half a byte-order mark, or two of them, is not JSON",
    ],
}


def _marked() -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
    """Per feature file, the scenarios (as written) whose steps lanes.yaml marks alone, apart and wide."""
    steps = lane_steps()
    alone: dict[str, list[str]] = {}
    apart: dict[str, list[str]] = {}
    wide: dict[str, list[str]] = {}
    for path in sorted(FEATURES.glob("*.feature")):
        for scenario in parse_feature(path.read_text(encoding="utf-8"), path.name):
            name = scenario.name.split(" [", 1)[0]
            [claim] = claims([[step.text for step in scenario.steps]], [[None]], steps)
            if claim.alone is not None and name not in alone.get(path.name, []):
                alone.setdefault(path.name, []).append(name)
            if claim.apart is not None and name not in apart.get(path.name, []):
                apart.setdefault(path.name, []).append(name)
            if claim.wide and name not in wide.get(path.name, []):
                wide.setdefault(path.name, []).append(name)
    return alone, apart, wide


def test_the_features_scenarios_marked_alone_apart_and_wide_are_exactly_these():
    assert _marked() == (ALONE, APART, WIDE)


def test_every_pattern_of_lanes_yaml_matches_a_step_of_the_features():
    steps = lane_steps()
    texts = {step.text for found in parse_features(FEATURES) for s in found.runnable for step in s.steps}
    for pattern, why in (*steps.alone, *steps.apart, *steps.wide):
        assert why
        assert any(pattern.fullmatch(text) for text in texts), pattern.pattern


def test_a_shared_binding_runs_in_lanes_of_its_own_and_a_unique_one_in_lane_0():
    lanes = Lanes(
        [Claim(frozenset({None})), Claim(frozenset({None})), Claim(frozenset({"a"})), Claim(frozenset({None}))], 3
    )
    assert lanes.startable(3) == [(0, (0,)), (1, (1,)), (2, (0,))]
    for index, taken in lanes.startable(3):
        lanes.start(index, taken)
    assert lanes.startable(3) == [(3, (2,))]
    lanes.end(1)
    assert lanes.startable(3) == [(3, (1,))]


def test_a_busy_binding_keeps_its_planned_order():
    lanes = Lanes(
        [Claim(frozenset({"a"})), Claim(frozenset({"a", "b"})), Claim(frozenset({"b"})), Claim(frozenset({"c"}))], 1
    )
    lanes.start(0, (0,))
    assert lanes.startable(4) == [(3, (0,))]  # 2 waits behind 1, which waits for "a"


def test_the_scenarios_that_run_alone_run_last_one_after_another_with_nothing_beside_them():
    quiet = Claim(frozenset({"q"}), alone="the snapshot lists the whole folder")
    lanes = Lanes([Claim(frozenset({"a"})), quiet, Claim(frozenset({"b"})), quiet], 4)
    assert lanes.startable(4) == [(0, (0,)), (2, (0,))]
    lanes.start(0, (0,))
    lanes.start(2, (0,))
    lanes.end(0)
    assert lanes.startable(4) == []
    lanes.end(2)
    assert lanes.startable(4) == [(1, (0,))]
    lanes.start(1, (0,))
    assert lanes.startable(4) == []
    lanes.end(1)
    assert lanes.startable(4) == [(3, (0,))]


def test_the_apart_scenarios_start_first_and_the_alone_ones_last():
    ordinary = Claim(frozenset({None}))
    planned = [
        ordinary,
        Claim(frozenset({"q"}), alone="quiet"),
        Claim(frozenset({"s"}), apart="timed"),
        ordinary,
        Claim(frozenset({"r"}), alone="quiet"),
        Claim(frozenset({"t"}), apart="timed"),
        ordinary,
    ]
    assert run_order(planned) == [2, 5, 0, 3, 6, 1, 4]
    assert Lanes(planned, 4).pending == [2, 5, 0, 3, 6, 1, 4]


def test_an_apart_scenario_runs_beside_ordinary_ones_never_beside_another_apart_or_an_alone_one():
    ordinary = Claim(frozenset({None}))
    planned = [
        ordinary,
        Claim(frozenset({"s"}), apart="timed"),
        Claim(frozenset({"t"}), apart="timed"),
        ordinary,
        Claim(frozenset({"q"}), alone="quiet"),
    ]
    lanes = Lanes(planned, 4)
    assert lanes.startable(4) == [(1, (0,)), (0, (0,)), (3, (1,))]  # 2 waits for 1; the ordinary ones pass it
    for index, taken in lanes.startable(4):
        lanes.start(index, taken)
    lanes.end(0)
    lanes.end(3)
    assert lanes.startable(4) == []  # 2 waits for 1, and 4 (alone) for 2
    lanes.end(1)
    assert lanes.startable(4) == [(2, (0,))]
    lanes.start(2, (0,))
    assert lanes.startable(4) == []
    lanes.end(2)
    assert lanes.startable(4) == [(4, (0,))]


def test_a_wide_scenario_takes_every_lane_of_its_binding():
    lanes = Lanes([Claim(frozenset({None})), Claim(frozenset({None}), wide=True), Claim(frozenset({"a"}))], 3)
    assert lanes.startable(3) == [(0, (0,)), (2, (0,))]
    lanes.start(0, (0,))
    lanes.start(2, (0,))
    lanes.end(0)
    assert lanes.startable(2) == [(1, (0, 1, 2))]


def test_once_a_stop_is_decided_nothing_more_starts_and_what_runs_is_finished():
    release = threading.Event()
    begun: list[int] = []
    finished: list[tuple[int, str]] = []

    def begin(index: int, lanes: tuple[int, ...]):
        begun.append(index)

        def work() -> str:
            if index != 0:
                assert release.wait(10)
            return "failed" if index == 0 else "passed"

        return work

    def finish(index: int, status: str) -> None:
        finished.append((index, status))
        release.set()  # scenario 1 is still in flight when the stop is decided

    run_in_lanes(
        [Claim(frozenset({str(n)})) for n in range(6)],
        2,
        begin=begin,
        finish=finish,
        stopped=lambda: any(status == "failed" for _, status in finished),
        unstarted=lambda error: None,
        abort=lambda: None,
    )
    assert begun == [0, 1]
    assert finished == [(0, "failed"), (1, "passed")]


def test_a_scenario_that_ends_first_is_finished_after_those_planned_before_it():
    first_may_end = threading.Event()
    finished: list[int] = []

    def begin(index: int, lanes: tuple[int, ...]):
        def work() -> int:
            if index == 0:
                assert first_may_end.wait(10)
            else:
                first_may_end.set()  # scenario 1 ends first: scenario 0 ends only after it
            return index

        return work

    run_in_lanes(
        [Claim(frozenset({str(n)})) for n in range(2)],
        2,
        begin=begin,
        finish=lambda index, result: finished.append(result),
        stopped=lambda: False,
        unstarted=lambda error: None,
        abort=lambda: None,
    )
    assert finished == [0, 1]


def test_a_scenario_held_back_by_one_that_never_starts_is_finished_once_the_run_stopped():
    finished: list[tuple[int, str]] = []

    def begin(index: int, lanes: tuple[int, ...]):
        return lambda: "failed" if index == 0 else "passed"

    run_in_lanes(  # 1 waits for every lane of "a", 0 holds one; 2 runs beside 0; 0 fails: 1 never starts
        [Claim(frozenset({"a"})), Claim(frozenset({"a"}), wide=True), Claim(frozenset({"b"}))],
        2,
        begin=begin,
        finish=lambda index, status: finished.append((index, status)),
        stopped=lambda: any(status == "failed" for _, status in finished),
        unstarted=lambda error: None,
        abort=lambda: None,
    )
    assert finished == [(0, "failed"), (2, "passed")]


def test_an_interrupt_stops_the_servers_and_waits_for_the_workers():
    aborted, running = threading.Event(), threading.Event()
    ended: list[int] = []

    def begin(index: int, lanes: tuple[int, ...]):
        def work() -> int:
            if index == 1:
                running.set()
                assert aborted.wait(10)  # a worker's call ends once its server is stopped
                ended.append(index)
            return index

        return work

    def finish(index: int, result: int) -> None:
        assert running.wait(10)
        raise KeyboardInterrupt  # a signal while scenario 1 is in flight

    with pytest.raises(KeyboardInterrupt):
        run_in_lanes(
            [Claim(frozenset({str(n)})) for n in range(3)],
            2,
            begin=begin,
            finish=finish,
            stopped=lambda: False,
            unstarted=lambda error: None,
            abort=aborted.set,
        )
    assert ended == [1]  # stopped through abort, and ended before run_in_lanes returned


def test_a_signal_wherever_the_loop_is_ends_the_run_and_leaves_no_lock_taken():
    """The SIGTERM handler run at each point of the loop where CPython runs one (tests/runner/fakes/signal_sweep.py):
    each run ends with the signal raised, or Python dropped it (in a weakref callback), and the sweep ends (a
    lock left taken hangs a worker and the loop's last wait for ever: the timeout is the guard). Before the pool's
    machinery was shielded, a signal between a lock's taking and its ``with`` block hung it (in
    ``concurrent.futures.wait`` and in a worker's start)."""
    script = REPO / "tests/runner/fakes/signal_sweep.py"
    sweep = subprocess.run([sys.executable, str(script)], check=False, capture_output=True, text=True, timeout=240)
    assert sweep.returncode == 0, sweep.stderr[-3000:]
    points, ended, dropped = map(int, sweep.stdout.split())
    assert (ended + dropped, sweep.stderr) == (points, "")
    assert points > 100  # the loop's points, not a few before it


def test_an_interrupt_python_dropped_is_raised_before_the_next_scenario_starts(monkeypatch: pytest.MonkeyPatch):
    """The handler raises wherever the main thread is; in a weakref callback Python prints the exception and drops
    it. The loop raises it again at its next turn instead of running the rest of the suite."""
    dropped: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: dropped.append(type(info.exc_value).__name__))
    begun: list[int] = []
    finished: list[int] = []

    class Token:
        pass

    def begin(index: int, lanes: tuple[int, ...]):
        begun.append(index)
        if index == 0:  # SIGTERM's handler runs in a weakref callback
            token = Token()
            handler = signal.getsignal(signal.SIGTERM)
            assert callable(handler)
            watch = weakref.ref(token, lambda _: handler(signal.SIGTERM, None))
            del token
            assert watch() is None
        return lambda: index

    with signals.interrupts(), pytest.raises(RunInterrupted):
        run_in_lanes(
            [Claim(frozenset({str(n)})) for n in range(3)],
            1,
            begin=begin,
            finish=lambda index, result: finished.append(result),
            stopped=lambda: False,
            unstarted=lambda error: None,
            abort=lambda: None,
        )
    assert (dropped, begun, finished) == (["RunInterrupted"], [0], [0])


def test_calls_dealt_over_lanes_are_put_back_in_call_order():
    assert _interleaved([["call 1", "call 4"], ["call 2", "call 5"], ["call 3"]]) == [
        "call 1",
        "call 2",
        "call 3",
        "call 4",
        "call 5",
    ]


@pytest.mark.parametrize(
    ("value", "said"), [("0", "--jobs 0 is out of range [1, 8]"), ("9", "--jobs 9 is out of range [1, 8]")]
)
def test_jobs_outside_1_to_8_is_a_usage_error(value: str, said: str, capsys: pytest.CaptureFixture[str]):
    assert main(["run", "--in-process", "--jobs", value]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == f"ccweb-conformance: error: {said}"


def test_four_scenarios_run_together_unless_told_otherwise():
    assert resolve_values(RunnerOptions()).jobs == 4
    assert resolve_values(RunnerOptions(jobs=1)).jobs == 1
