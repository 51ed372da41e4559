"""STO-5's calls during saves the runner holds torn: a call whose every save the runner completed late (its own
machine too busy) judges nothing, so a scenario left with such calls is not judged rather than passed; an on-time
answer of conversation_unreadable still fails it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any

import pytest

from ccweb_conformance.checks.failures import ConformanceFailure
from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.fixtures.conversations import cc_web_session
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite.steps import concurrency_steps
from ccweb_conformance.transport.run_context import RunContext

OK = {"ok": True, "items": [{"content": "hello"}]}
UNREADABLE = {"ok": False, "error": {"code": "conversation_unreadable", "message": "torn"}}


class _Save:
    """A held save that completes after the given seconds (a late one when the runner's machine was busy)."""

    def __init__(self, completed_after_s: float) -> None:
        self.completed_after_s = completed_after_s

    def __enter__(self) -> _Save:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        return None


def _answering(world: Any, answers: list[dict[str, Any]]) -> Any:
    def call_and_read(arguments: Any) -> None:
        result = answers.pop(0) if len(answers) > 1 else answers[0]
        world.outcomes.append(SimpleNamespace(result=result, is_error=not result["ok"], exchange=None))

    return call_and_read


def _world(tmp_path: Path, answers: list[dict[str, Any]]) -> Any:
    """A world whose calls answer ``answers`` in turn (the last one again once they run out)."""
    files = Workspace(None, root=tmp_path).scenario(1)
    alpha = files.new_id("alpha")
    files.write_session(alpha, cc_web_session(alpha, [{"role": "user", "content": "hello", "timestamp": None}]))
    world = SimpleNamespace(
        files=files, ids={"alpha": alpha}, context=RunContext(), outcomes=[], other_era_outcomes=[],
        eras_answer_alike=True, held_calls=0, unjudged_calls=0,
    )  # fmt: skip
    world.call_and_read = _answering(world, answers)
    return world


def _held(monkeypatch: pytest.MonkeyPatch, completed: list[float]) -> list[float]:
    """TornSave replaced by saves completing after ``completed`` seconds in turn (the last one again after); the
    pauses the runner then makes after late saves, recorded rather than slept."""
    times = list(completed)
    monkeypatch.setattr(concurrency_steps, "TornSave", lambda *a: _Save(times.pop(0) if len(times) > 1 else times[0]))
    pauses: list[float] = []
    monkeypatch.setattr(concurrency_steps.time, "sleep", pauses.append)
    return pauses


def test_calls_whose_every_save_was_late_leave_the_scenario_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first call's saves are on time; the second's ten saves are all late: one of two calls judged nothing,
    after a pause that grows after each late save (a burst of load passes)."""
    pauses = _held(monkeypatch, [0.05, 0.2])
    world = _world(tmp_path, [OK, UNREADABLE])
    concurrency_steps.call_during_held_saves(world, 2, "alpha", 50, '{"conversationId": "{alpha}"}')
    assert (world.held_calls, world.unjudged_calls, [o.result for o in world.outcomes]) == (2, 1, [OK])
    assert pauses == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])
    with pytest.raises(StepSkipped) as skipped:
        concurrency_steps.no_answer_is_unreadable(world)
    assert str(skipped.value) == (
        "not judged: 1 of the 2 calls had every one of their 10 saves completed late (after 150 ms): the runner's"
        " machine was too busy to hold a save for a set time (D-14)"
    )


def test_an_on_time_unreadable_answer_fails_even_beside_calls_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Confirmed unreadable on time (twice), then a call whose saves were all late: the failure is reported."""
    pauses = _held(monkeypatch, [0.05, 0.05, 0.2])
    world = _world(tmp_path, [UNREADABLE])
    concurrency_steps.call_during_held_saves(world, 2, "alpha", 50, '{"conversationId": "{alpha}"}')
    assert (world.held_calls, world.unjudged_calls, [o.result for o in world.outcomes]) == (2, 1, [UNREADABLE])
    assert pauses == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5])  # none after an on-time save
    with pytest.raises(ConformanceFailure) as failed:
        concurrency_steps.no_answer_is_unreadable(world)
    assert str(failed.value).startswith("1 of 1 calls during saves that the runner completed within 150 ms were ")


def test_calls_all_judged_on_time_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pauses = _held(monkeypatch, [0.05])
    world = _world(tmp_path, [OK])
    concurrency_steps.call_during_held_saves(world, 3, "alpha", 50, '{"conversationId": "{alpha}"}')
    assert (world.held_calls, world.unjudged_calls, len(world.outcomes), pauses) == (3, 0, 3, [])
    concurrency_steps.no_answer_is_unreadable(world)
