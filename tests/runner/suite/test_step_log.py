"""The step log: the steps after a failed one never ran, so they are skipped, not failed."""

from __future__ import annotations

from ccweb_conformance.suite.step_log import LoggedStep as Step
from ccweb_conformance.suite.step_log import StepLog

STEPS = [Step("Given", "a conversation", 3), Step("When", "I call the tool", 4), Step("Then", "items are", 5),
         Step("And", "hasMore is false", 6)]


def test_steps_after_the_failed_one_are_skipped_with_no_duration() -> None:
    log = StepLog(list(STEPS))
    log.started(STEPS[0])
    log.passed()
    log.started(STEPS[1])
    log.failed()
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
        log.started(step)
        log.passed()
    log.started(STEPS[3])
    log.failed()
    assert [r.status for r in log.results()] == ["passed", "passed", "passed", "failed"]
