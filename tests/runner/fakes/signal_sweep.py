"""A signal delivered at every point of ``run_in_lanes`` where CPython runs a signal handler, one run per point.

CPython runs a Python signal handler on the main thread where it checks for pending calls: at a function's
start, a backward jump, and after a call. This script runs ``run_in_lanes`` (3 scenarios, 2 jobs; the first ends
at once, the others once a scenario was finished or the run aborted) under a trace function that calls the
installed SIGTERM handler at the N-th such point, for N = 1, 2, ... until a run ends before its N-th point. A run
that leaves a lock taken never ends: the test that runs this bounds it. It prints the points, the runs the signal
ended (RunInterrupted raised out of ``run_in_lanes``) and the signals Python could only print (the handler ran in
a weakref callback, whose exception is printed and dropped): one line, three numbers.
"""

from __future__ import annotations

import dis
import signal
import sys
from queue import SimpleQueue
from types import FrameType
from typing import Any

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.suite.lanes import Claim, run_in_lanes
from ccweb_conformance.transport import signals

CALLS = {dis.opmap["CALL"], dis.opmap["CALL_FUNCTION_EX"]}
CHECKS = {dis.opmap["RESUME"], dis.opmap["JUMP_BACKWARD"]}
DROPPED: list[str] = []


def _unraisable(info: Any) -> None:
    DROPPED.append(type(info.exc_value).__name__)


def landing(at: int) -> bool | None:
    """One run with the signal at its ``at``-th point: True when it ended the run, None when the run had fewer."""
    gate: SimpleQueue[None] = SimpleQueue()  # not threading.Event: the signal lands in this script's code too
    points = [0]
    after_call: set[int] = set()

    def release(*_: object) -> None:
        for _ in range(3):
            gate.put(None)

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        frame.f_trace_opcodes = True
        if event != "opcode":
            return tracer
        opcode = frame.f_code.co_code[frame.f_lasti]
        if opcode in CHECKS or id(frame) in after_call:
            points[0] += 1
            if points[0] == at:
                handler = signal.getsignal(signal.SIGTERM)
                assert callable(handler)
                handler(signal.SIGTERM, frame)
        (after_call.add if opcode in CALLS else after_call.discard)(id(frame))
        return tracer

    def begin(index: int, lanes: tuple[int, ...]) -> Any:
        return lambda: index if index == 0 else gate.get(timeout=30)

    try:
        with signals.interrupts():
            sys.settrace(tracer)
            try:
                run_in_lanes(
                    [Claim(frozenset({str(n)})) for n in range(3)],
                    2,
                    begin=begin,
                    finish=release,
                    stopped=lambda: False,
                    unstarted=lambda error: None,
                    abort=release,
                )
            finally:
                sys.settrace(None)
    except RunInterrupted:
        return True
    return None if points[0] < at else False


def main() -> None:
    sys.unraisablehook = _unraisable
    at, ended = 1, 0
    while (outcome := landing(at)) is not None:
        ended += outcome
        at += 1
    print(at - 1, ended, DROPPED.count("RunInterrupted"))


if __name__ == "__main__":
    main()
