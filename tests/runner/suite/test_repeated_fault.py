"""The same protocol fault, scenario after scenario, stops the run with one verdict (--stop-after)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

from runner.suite.test_collector_status import Item, Marker, Report, template  # noqa: F401 (an autouse fixture)

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.suite import plugin
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.repeated_fault import RepeatedFault, protocol_fault
from ccweb_conformance.transport.exchange import Exchange

STRAY = "stdio server 'node s.js': tools/call: the server wrote a line that is not JSON: 'listing user inputs\\n'"


def stray(text: str = STRAY) -> ProtocolFailure:
    exchange = Exchange(request={"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}}, response=None)
    return ProtocolFailure(text, exchange, kind="garbage")


NUMBERS = itertools.count()


def scenario() -> Item:
    return Item([Marker("SEL-6")], nodeid=f"features/x.feature::s{next(NUMBERS)}")


def observe_all(results: ResultCollector, outcomes: list[tuple[str, BaseException | None]]) -> None:
    for outcome, error in outcomes:
        call = SimpleNamespace(excinfo=None if error is None else SimpleNamespace(value=error))
        plugin._observe(results, scenario(), call, Report(outcome))  # type: ignore[arg-type]


def test_the_fault_is_what_the_server_did_without_the_target_description() -> None:
    assert protocol_fault(stray()) == "tools/call: the server wrote a line that is not JSON: 'listing user inputs\\n'"
    wrapped = AssertionError("step failed")
    wrapped.__cause__ = stray()
    assert protocol_fault(wrapped) == protocol_fault(stray())
    assert protocol_fault(ProtocolFailure("no answer", kind="timeout")) is None
    assert protocol_fault(AssertionError("items differ")) is None
    assert protocol_fault(None) is None


def test_three_failures_in_a_row_with_the_same_fault_stop_the_run_once() -> None:
    results = ResultCollector(strict=False)
    observe_all(results, [("failed", stray())] * 2)
    assert results.stop_reason is None
    observe_all(results, [("failed", stray(STRAY.replace("inputs", "inputs 42")))])
    assert results.stop_reason is None  # another fault: the row starts again
    observe_all(results, [("failed", stray(STRAY.replace("inputs", "inputs 7")))] * 2)  # numbers are masked
    assert results.stop_reason == (
        "not run: the implementation broke the protocol the same way in 3 scenarios in a row "
        "(tools/call: the server wrote a line that is not JSON: 'listing user inputs 42\\n')"
    )


def test_a_pass_or_another_failure_between_them_starts_the_row_again() -> None:
    results = ResultCollector(strict=False)
    observe_all(
        results,
        [("failed", stray()), ("failed", stray()), ("passed", None), ("failed", stray()), ("failed", stray()),
         ("failed", AssertionError("items differ")), ("failed", stray()), ("failed", stray())],
    )
    assert results.stop_reason is None


def test_the_bound_is_stop_after() -> None:
    results = ResultCollector(strict=False)
    results.stop_after = 5
    observe_all(results, [("failed", stray())] * 4)
    assert results.stop_reason is None
    observe_all(results, [("failed", stray())])
    assert results.stop_reason is not None and results.stop_reason.startswith(
        "not run: the implementation broke the protocol the same way in 5 scenarios in a row"
    )


def test_only_failures_count() -> None:
    counter = RepeatedFault()
    assert [counter.observe(stray(), failed) for failed in (True, True, False, True)] == [1, 2, 0, 1]
