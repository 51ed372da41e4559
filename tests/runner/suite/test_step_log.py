"""The step log: the steps after a failed one never ran, so they are skipped, not failed."""

from __future__ import annotations

from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.scenarios import Step
from ccweb_conformance.suite.step_log import StepLog

STEPS = [Step("given", "Given", "a conversation", 3), Step("when", "When", "I call the tool", 4),
         Step("then", "Then", "items are", 5), Step("then", "And", "hasMore is false", 6)]


def test_steps_after_the_failed_one_are_skipped_with_no_duration() -> None:
    log = StepLog(list(STEPS))
    log.before_step(STEPS[0])
    log.after_step()
    log.before_step(STEPS[1])
    log.step_error()
    results = log.results()
    assert [(r.keyword, r.text, r.status, r.line) for r in results] == [
        ("Given", "a conversation", "passed", 3),
        ("When", "I call the tool", "failed", 4),
        ("Then", "items are", "skipped", 5),
        ("And", "hasMore is false", "skipped", 6),
    ]
    assert [r.duration_s for r in results[2:]] == [0.0, 0.0]


def test_a_failure_in_the_last_step_skips_nothing() -> None:
    log = StepLog(list(STEPS))
    for step in STEPS[:3]:
        log.before_step(step)
        log.after_step()
    log.before_step(STEPS[3])
    log.step_error()
    assert [r.status for r in log.results()] == ["passed", "passed", "passed", "failed"]


def test_a_step_that_skips_its_scenario_stays_as_it_began() -> None:
    log = StepLog(list(STEPS))
    log.before_step(STEPS[0])
    log.step_error(STEPS[0], StepSkipped("no named pipes here"))
    assert [(r.text, r.status, r.duration_s) for r in log.results()] == [("a conversation", "passed", 0.0)]
