"""Which scenarios may run at the same time (``--jobs``), and the loop that runs them so.

A scenario claims the source bindings it uses (``suite/lookahead.py``): over stdio each is a server process
that answers one connection in order, over HTTP a connection of its own. A binding has up to ``--jobs``
lanes, each a connection of its own (over stdio, a process). Scenarios whose claims do not meet run together;
scenarios that share a binding (none bound, or the shared decoy) run together each in a lane of its own. What
``lanes.yaml`` names changes that: a scenario with an ``alone`` step runs alone (nothing else in flight); one with
an ``apart`` step runs beside ordinary scenarios but never beside another apart or alone one; one with a ``wide`` step
takes every lane of its binding, to spread its calls in flight together over them. The scenarios start in the run
order (``run_order``): the apart ones first, so the ordinary ones run beside them, and the alone ones last, one
after another. Each scenario is handed back in the planned order, once every scenario planned before it has ended,
so what the caller judges (and the stops its verdicts decide) comes in the order of a run one after another.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib.resources import files
from queue import SimpleQueue
from typing import Any, TypeVar

from ccweb_conformance.transport import signals
from ccweb_spec import yaml_data

__all__ = ["Claim", "LaneSteps", "Lanes", "claims", "lane_steps", "run_in_lanes", "run_order"]

T = TypeVar("T")
Held = set[tuple[str | None, int]]


@dataclass(frozen=True)
class LaneSteps:
    """The step patterns of ``lanes.yaml``: each with why it changes how its scenario runs."""

    alone: tuple[tuple[re.Pattern[str], str], ...]
    apart: tuple[tuple[re.Pattern[str], str], ...]
    wide: tuple[tuple[re.Pattern[str], str], ...]


def _patterns(entries: list[dict[str, Any]]) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(entry["pattern"]), entry["why"]) for entry in entries)


def lane_steps(text: str | None = None) -> LaneSteps:
    """The steps of ``lanes.yaml`` (or of ``text``, the same shape)."""
    if text is None:
        text = files("ccweb_conformance.suite").joinpath("lanes.yaml").read_text(encoding="utf-8")
    data = yaml_data(text)
    return LaneSteps(_patterns(data["alone"]), _patterns(data["apart"]), _patterns(data["wide"]))


@dataclass(frozen=True)
class Claim:
    """What one scenario holds while it runs: a lane of its source bindings (None: no binding), or more."""

    sources: frozenset[str | None]
    alone: str | None = None
    """Why it runs alone, or None: it may run beside others."""
    wide: bool = False
    """It takes every lane of its bindings."""
    apart: str | None = None
    """Why it never runs beside another apart or an alone scenario (it may beside others), or None."""


def _why(texts: Sequence[str], patterns: tuple[tuple[re.Pattern[str], str], ...]) -> str | None:
    return next((why for text in texts for pattern, why in patterns if pattern.fullmatch(text)), None)


def claims(
    step_texts: Sequence[Sequence[str]], sources: Sequence[Sequence[str | None]], steps: LaneSteps
) -> list[Claim]:
    """Each scenario's claim, from its step texts and its source bindings, in the same order."""
    return [
        Claim(frozenset(bound), _why(texts, steps.alone), _why(texts, steps.wide) is not None, _why(texts, steps.apart))
        for texts, bound in zip(step_texts, sources, strict=True)
    ]


def _start_group(claim: Claim) -> int:
    """0 for an apart scenario, 1 for an ordinary one, 2 for an alone one (whatever else it claims)."""
    if claim.alone is not None:
        return 2
    return 0 if claim.apart is not None else 1


def run_order(planned: Sequence[Claim]) -> list[int]:
    """The order the planned scenarios start in: the apart ones, the ordinary ones, the alone ones (each in the
    planned order). The apart ones run beside the ordinary ones, and the alone ones wait once for the others to
    end, not once each."""
    return sorted(range(len(planned)), key=lambda index: _start_group(planned[index]))


class Lanes:
    """Which of the planned scenarios may start now, and in which lanes of their bindings."""

    def __init__(self, planned: Sequence[Claim], lanes: int) -> None:
        self._claims = list(planned)
        self._lanes = lanes
        self.pending: list[int] = run_order(planned)
        """The scenarios not started yet, in the order they start."""
        self.running: dict[int, tuple[int, ...]] = {}
        """Each running scenario's lanes (the first is the one it uses for its binding)."""

    def _free(self, claim: Claim, held: Held) -> tuple[int, ...]:
        """The lanes the claim may take now: the lowest free one, or every one (wide); () when it must wait."""
        free = [lane for lane in range(self._lanes) if not any((s, lane) in held for s in claim.sources)]
        if claim.wide:
            return tuple(free) if len(free) == self._lanes else ()
        return tuple(free[:1])

    def startable(self, room: int) -> list[tuple[int, tuple[int, ...]]]:
        """Up to ``room`` pending scenarios, in the run order, that may start beside those running, with their
        lanes."""
        if any(self._claims[i].alone is not None for i in self.running):
            return []
        apart = any(self._claims[i].apart is not None for i in self.running)
        held = {
            (source, lane) for i, taken in self.running.items() for source in self._claims[i].sources for lane in taken
        }
        waiting: set[str | None] = set()
        chosen: list[tuple[int, tuple[int, ...]]] = []
        for index in self.pending:
            if len(chosen) >= room:
                break
            claim = self._claims[index]
            if claim.alone is not None:  # a barrier: it starts once nothing runs, and nothing passes it
                if not self.running and not chosen:
                    chosen.append((index, (0,)))
                break
            if claim.apart is not None and apart:  # another apart one runs: it waits, the ordinary ones pass it
                waiting |= claim.sources
                continue
            lanes = () if claim.sources & waiting else self._free(claim, held)
            if not lanes:  # its lanes are busy, or an earlier scenario waits for them: the binding keeps its order
                waiting |= claim.sources
                continue
            chosen.append((index, lanes))
            held |= {(source, lane) for source in claim.sources for lane in lanes}
            apart = apart or claim.apart is not None
        return chosen

    def start(self, index: int, lanes: tuple[int, ...]) -> None:
        """The scenario started in ``lanes``."""
        self.pending.remove(index)
        self.running[index] = lanes

    def end(self, index: int) -> None:
        """The scenario ended."""
        del self.running[index]


def _submit(pool: ThreadPoolExecutor, work: Callable[[], T], unstarted: Callable[[BaseException], None]) -> Future[T]:
    """``work`` on a worker thread; done here when no thread can start (the limit, noted by ``unstarted``)."""
    try:
        with signals.shielded():  # a worker's start waits on an Event: a signal raised there leaves its lock taken
            return pool.submit(work)
    except RuntimeError as error:  # can't start new thread
        unstarted(error)
        done: Future[T] = Future()
        done.set_result(work())
        return done


def _finish_in_order(
    ended: dict[int, T], lanes: Lanes, finish: Callable[[int, T], None], stopped: Callable[[], bool]
) -> None:
    """Finish the ended scenarios that no earlier one holds back: one running, or pending while the run goes on."""
    for index in sorted(ended):
        if any(earlier < index for earlier in lanes.running) or (
            any(earlier < index for earlier in lanes.pending) and not stopped()
        ):
            return
        finish(index, ended.pop(index))


def run_in_lanes(
    planned: Sequence[Claim],
    jobs: int,
    *,
    begin: Callable[[int, tuple[int, ...]], Callable[[], T]],
    finish: Callable[[int, T], None],
    stopped: Callable[[], bool],
    unstarted: Callable[[BaseException], None],
    abort: Callable[[], None],
) -> None:
    """Run the planned scenarios on up to ``jobs`` threads.

    ``begin(i, lanes)``, on this thread, prepares scenario ``i`` in those lanes of its bindings and returns its
    work, run on a worker; ``finish(i, result)``, on this thread, in the planned order: a scenario that ended waits
    for those planned before it. Once ``stopped()`` says so, nothing more starts; what runs ends and is finished.

    A signal (SIGINT, SIGTERM, SIGHUP) is raised at once in ``begin`` and ``finish``, but never inside the pool's
    machinery (``signals.shielded``), where it could leave a lock taken that a worker then waits for for ever
    (``concurrent.futures.wait`` takes each future's lock in turn): there it ends the wait for the next scenario to
    end (``finished``) and is raised after it. Then ``abort()`` stops the servers the workers talk to, and the
    workers are waited for. That wait is bounded: ``abort()`` stops every server side by side (SIGTERM, then SIGKILL
    after ``STOP_GRACE``), and each wait of a worker ends with its server's output or connection (an exchange,
    PROTO-5's window) or after its own short length (a settle delay, a pause); a read from a server the run did not
    start (``--url``), which it cannot stop, ends when the signal's handler shuts the run's HTTP connections
    (``transport/connections.py``).
    """
    lanes = Lanes(planned, jobs)
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="ccweb-job")
    in_flight: dict[Future[T], int] = {}
    ended: dict[int, T] = {}
    finished: SimpleQueue[Future[T] | None] = SimpleQueue()
    """Each scenario's future as it ends; None: a signal came (put in its handler: a SimpleQueue.put is reentrant)."""
    try:
        while lanes.pending or in_flight:
            signals.raise_if_lost()
            if not stopped():
                for index, taken in lanes.startable(jobs - len(in_flight)):
                    lanes.start(index, taken)
                    future = _submit(pool, begin(index, taken), unstarted)
                    with signals.shielded():  # the future's lock: the worker that ends it takes it too
                        in_flight[future] = index
                        future.add_done_callback(finished.put)
            if not in_flight:
                return
            with signals.shielded(wake=lambda: finished.put(None)):
                done = finished.get()
            assert done is not None  # a signal's None: the shielded block raised it
            index = in_flight.pop(done)
            lanes.end(index)
            ended[index] = done.result()
            _finish_in_order(ended, lanes, finish, stopped)
    except BaseException:
        abort()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
