"""The target's start on a thread of its own (suite/early_start.py): its result, its error, its bound."""

from __future__ import annotations

import threading

from ccweb_conformance.errors import TargetError
from ccweb_conformance.suite.early_start import EarlyStart, Started


def test_take_hands_out_what_the_start_made_once_it_ended() -> None:
    def start(started: Started) -> None:
        started.error = None
        started.ledger = None

    early = EarlyStart(start, bound_s=5.0)
    result = early.take()
    assert early.taken is True
    assert (result.ledger, result.target, result.error) == (None, None, None)


def test_an_error_of_the_start_is_kept_for_the_fixture_to_raise() -> None:
    problem = TargetError("no such command")

    def start(started: Started) -> None:
        raise problem

    assert EarlyStart(start, bound_s=5.0).take().error is problem


def test_a_start_still_running_after_the_bound_is_a_target_error() -> None:
    release = threading.Event()

    def start(started: Started) -> None:
        release.wait(5.0)

    early = EarlyStart(start, bound_s=0.05)
    try:
        error = early.take().error
    finally:
        release.set()
    assert isinstance(error, TargetError)
    assert str(error) == "the target did not start within 0.05 s"
