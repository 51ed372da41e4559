"""The run context: every part made anew for each run, nothing shared between two."""

from __future__ import annotations

import dataclasses

from ccweb_conformance.transport.run_context import RunContext


def test_two_contexts_share_no_part() -> None:
    first, second = RunContext(), RunContext()
    shared = [f.name for f in dataclasses.fields(RunContext) if getattr(first, f.name) is getattr(second, f.name)]
    assert shared == []
    assert first.reaping.marker != second.reaping.marker


def test_what_one_run_records_the_other_does_not_see() -> None:
    first, second = RunContext(), RunContext()
    first.processes.note("stdio server", "exec")
    first.waits.record("settle", 0.25)
    first.exhausted.append("RuntimeError: can't start new thread")
    first.seen_results[("{}", "{}")] = []
    first.interrupt.signum = 2
    seen = (second.processes.started(), second.waits.totals(), second.exhausted, second.seen_results)
    assert seen == ([], {}, [], {})
    assert second.interrupt.interrupted is False
    assert first.waits.totals() == {"settle": 0.25}

