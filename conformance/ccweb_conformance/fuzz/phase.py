"""The fuzz phase of a run: the argument sweep, then hypothesis's cases in seeded batches.

The phase is bounded by its number of cases: it ends when every sweep call and every generated
case has run, or at the first mismatch. A mismatch charged only to requirements the expected-failures
file baselines (``tolerated``) is counted and kept, and the phase goes on: it still runs every case,
and fails on any other difference. Time is only a safety bound (``--fuzz-time``, by default
generous: :func:`.settings.safety_bound`); a phase that reaches it before its last case **fails**, as
"incomplete: N of M cases". It never passes on fewer cases than asked: a WARN would leave the
exit code 0, and a server slow enough (by accident, or on purpose on what it takes for fuzz
cases) would pass a gate that checked it on a fraction of its cases.

Every case gets its conversation ID the way a scenario does, from the run's workspace
(:mod:`ccweb_conformance.fixtures.workspace`: a part of its own per case, ``fuzz<n>``, and the ``alpha``
alias), so no ID tells a fuzz case apart, and in a ``--sessions-dir`` every file carries the run's prefix
and is removed with the run's other entries.

The scenarios' client names itself (``clientInfo.name`` ``ccweb-conformance``); the phase's client,
a target of its own, introduces itself as :data:`PHASE_CLIENT_NAME`, the client cc-web's agents
run. Every answer of the phase is compared with the reference core, so an implementation whose
answers depend on the client's name (correct only for ``ccweb-conformance``) fails the phase.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, configuration, given, seed, settings

from ccweb_conformance.errors import TargetError
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.fuzz.execute import FuzzMismatch, Mismatch, run_case
from ccweb_conformance.fuzz.requirements import mismatch_requirements
from ccweb_conformance.fuzz.settings import FuzzSettings
from ccweb_conformance.fuzz.strategies import fuzz_cases
from ccweb_conformance.fuzz.sweep import sweep_cases
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import TargetSpec

BATCH = 100
"""Cases per hypothesis run; each batch has its own seed derived from the run's seed."""
MAX_BATCHES_OVER = 10
"""Batches past ``count / BATCH`` tried when hypothesis generates fewer cases than asked (it never has)."""
PHASE_CLIENT_NAME = "claude-code"
"""``clientInfo.name`` of the phase's client: the answers must not depend on who asks."""
CASE_ALIAS = "alpha"
"""The alias of each case's conversation: the one most scenarios use."""
FUZZ_PART = "fuzz"
"""The workspace part of the ``n``-th call is ``fuzz<n>``: no scenario's (those are numbers)."""


@dataclass
class FuzzRun:
    """What the fuzz phase did and found."""

    settings: FuzzSettings
    replay: str
    cases_run: int = 0
    duration_s: float = 0.0
    digest: str = ""
    """SHA-256 of the generated cases in order: the same seed (and Hypothesis version) gives the same digest."""
    mismatch: Mismatch | None = None
    shrink_calls: int = 0
    sweep_calls: int = 0
    """Calls of the argument sweep (not counted in ``cases_run`` nor in the digest)."""
    error: str | None = None
    """The target could not be started or reached."""
    timed_out: bool = False
    """The safety bound was reached before the last case."""
    target_description: str = ""
    tolerated_by: frozenset[str] = frozenset()
    """The requirements the expected-failures file baselines: a difference charged only to them is tolerated."""
    tolerated: Mismatch | None = None
    """The first tolerated difference (the phase went on past it)."""
    tolerated_count: int = 0
    """Calls (sweep and cases) whose only differences were tolerated."""
    tolerated_requirements: tuple[str, ...] = ()
    """The requirements the tolerated differences were charged to, in the order first seen."""

    def tolerates(self, mismatch: Mismatch) -> bool:
        """Record ``mismatch`` and say True when every requirement it is charged to is baselined."""
        charged = mismatch_requirements(mismatch)
        if not charged or not set(charged) <= self.tolerated_by:
            return False
        if self.mismatch is None:  # not while shrinking another difference
            self.tolerated = self.tolerated or mismatch
            self.tolerated_count += 1
            self.tolerated_requirements = tuple(dict.fromkeys((*self.tolerated_requirements, *charged)))
        return True

    @property
    def incomplete(self) -> bool:
        """No mismatch or error, yet fewer calls than asked (the safety bound, or --max-time, stopped it)."""
        ran_all = self.cases_run >= self.settings.count and self.sweep_calls >= self.settings.sweep_total
        return self.mismatch is None and self.error is None and not ran_all

    @property
    def passed(self) -> bool:
        """Every sweep call and every case ran, with no mismatch and no error."""
        return self.mismatch is None and self.error is None and not self.incomplete

    @property
    def throughput(self) -> float:
        """Cases per second over the phase's wall time."""
        return self.cases_run / self.duration_s if self.duration_s > 0 else 0.0


def _batch_seed(run_seed: int, batch: int) -> int:
    return int.from_bytes(hashlib.sha256(f"ccweb-fuzz:{run_seed}:{batch}".encode()).digest()[:8], "big")


def _case_digest_line(case: FuzzCase) -> bytes:
    return json.dumps(case.to_json(), sort_keys=True, ensure_ascii=True).encode("ascii") + b"\n"


def _hypothesis_run(batch_seed: int, size: int, check: Callable[[FuzzCase], None]) -> None:
    """``check`` on ``size`` cases drawn with ``batch_seed``; a failure is shrunk, then raised."""

    @settings(
        max_examples=size,
        database=None,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=(Phase.generate, Phase.shrink),
    )
    @seed(batch_seed)
    @given(fuzz_cases())
    def property_(case: FuzzCase) -> None:
        check(case)

    property_()


def _drive(run: FuzzRun, target: Target, workspace: Workspace, progress: Callable[[int, int], None] | None) -> None:
    """The sweep, then batches against one target until the count, the safety bound, a mismatch or an error; the
    smallest mismatch seen kept. ``progress``: told (calls done, differences found) after every call of the sweep
    and of the cases."""
    calls = itertools.count(1)
    started = time.perf_counter()
    shrink_deadline = 0.0
    hasher = hashlib.sha256()

    def out_of_time() -> bool:
        now = time.perf_counter()
        if run.mismatch is not None:
            return now > shrink_deadline
        if now - started > run.settings.bound:
            run.timed_out = True
            return True
        return False

    def call(case: FuzzCase) -> Mismatch | None:
        """One call, on a conversation named as a scenario's would be: the difference the run does not tolerate,
        or None (a target that fails is recorded as the run's error)."""
        files = workspace.part(f"{FUZZ_PART}{next(calls)}")
        try:
            mismatch = run_case(case, target, files, files.new_id(CASE_ALIAS))
        except TargetError as error:
            run.error = str(error).splitlines()[0]
            return None
        finally:
            if progress is not None:
                progress(run.sweep_calls + run.cases_run, 0 if run.mismatch is None else 1)
        return None if mismatch is None or run.tolerates(mismatch) else mismatch

    def check(case: FuzzCase) -> None:
        """The property: the implementation answers like the reference core."""
        nonlocal shrink_deadline
        if run.error is not None or out_of_time():
            return
        if run.mismatch is None:
            run.cases_run += 1
            hasher.update(_case_digest_line(case))
        else:
            run.shrink_calls += 1
        mismatch = call(case)
        if mismatch is not None:
            if run.mismatch is None:
                shrink_deadline = time.perf_counter() + max(run.settings.shrink_time, run.settings.bound)
            run.mismatch = mismatch
            raise FuzzMismatch(mismatch)

    if run.settings.sweep:  # every limit and the maxChars edges on one conversation, before anything is generated
        for case in sweep_cases():
            if run.mismatch is not None or run.error is not None or out_of_time():
                break
            run.sweep_calls += 1
            run.mismatch = call(case)  # None until one is found: the loop ends at the first
    try:
        _batches(run, check)
    finally:
        run.digest = hasher.hexdigest()


def _batches(run: FuzzRun, check: Callable[[FuzzCase], None]) -> None:
    """Seeded hypothesis runs of ``check``, a failure shrunk, until the count, the safety bound, a mismatch or an
    error."""
    count = run.settings.count
    for number in range(-(-count // BATCH) + MAX_BATCHES_OVER):
        if run.cases_run >= count or not run.incomplete or run.timed_out:
            break
        try:
            _hypothesis_run(_batch_seed(run.settings.seed, number), min(BATCH, count - run.cases_run), check)
        except FuzzMismatch as failure:
            run.mismatch = failure.mismatch
        except Exception:  # hypothesis gave up on the final replay (a flaky server): keep the smallest seen
            if run.mismatch is None and run.error is None:
                raise


@contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis draws, now and then, constants it collects from the "local" modules imported so far.

    Which modules those are depends on the install (an editable checkout is local, a wheel in
    site-packages is not) and on what the process imported before (the CLI, a test session): the
    same seed gave other cases in each. Without them a seed's cases depend only on the Hypothesis
    version. Private API, so tolerant: a Hypothesis without it is used as it is.
    """
    try:
        providers = importlib.import_module("hypothesis.internal.conjecture.providers")
    except ImportError:  # older Hypothesis (6.100): no providers module, no local constants either
        yield
        return
    get_local = getattr(providers, "_get_local_constants", None)
    constants = getattr(providers, "Constants", None)
    cache = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    if get_local is None or constants is None or not isinstance(cache, dict):
        yield
        return
    empty = constants()
    cache.clear()
    setattr(providers, "_get_local_constants", lambda: empty)  # noqa: B010 (a private name mypy does not know)
    try:
        yield
    finally:
        setattr(providers, "_get_local_constants", get_local)  # noqa: B010
        cache.clear()


@contextmanager
def hypothesis_storage() -> Iterator[None]:
    """Hypothesis's caches (unicode tables, constants) go to the user's cache folder, never a .hypothesis/ here.

    And no constant collected from the modules imported so far (:func:`_no_local_constants`).
    """
    with _no_local_constants(), _hypothesis_home():
        yield


@contextmanager
def _hypothesis_home() -> Iterator[None]:
    home = "__hypothesis_home_directory"
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or vars(configuration).get(home) is not None:
        yield  # the user chose a place
        return
    own: Path | None = None
    try:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ccweb-conformance" / "hypothesis"
        cache.mkdir(parents=True, exist_ok=True)
    except (OSError, RuntimeError):  # no usable home (unwritable, a file, unknown): a folder of this phase's own
        cache = own = Path(tempfile.mkdtemp(prefix="ccweb-conformance-hypothesis-"))
    configuration.set_hypothesis_home_dir(cache)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(None)
        if own is not None:  # it was left in the temporary folder, one per user, whenever HOME was unusable
            shutil.rmtree(own, ignore_errors=True)


def run_fuzz(
    spec: TargetSpec,
    fuzz: FuzzSettings,
    context: RunContext,
    *,
    tolerated: frozenset[str] = frozenset(),
    workspace: Workspace | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> FuzzRun:
    """The fuzz phase against a target built from ``spec`` (its own one, started and stopped here), in the run of
    ``context`` (its processes counted for the phase ``fuzz``).

    ``tolerated``: the requirements the expected-failures file baselines (see :meth:`FuzzRun.tolerates`).
    ``workspace``: the run's (the suite's), swept when the phase ends; None: one of the phase's own, closed.
    ``progress``: told (calls done, differences found) after each call; of ``fuzz.sweep_total + fuzz.count``.
    """
    run = FuzzRun(fuzz, replay_command(spec, fuzz), tolerated_by=tolerated)
    space = Workspace(spec.sessions_dir) if workspace is None else workspace
    started = time.perf_counter()
    try:
        with (
            context.processes.phase("fuzz"),
            make_target(spec, space.open(), context) as target,
        ):
            target.client_name = PHASE_CLIENT_NAME  # before its first client
            run.target_description = target.description
            target.client(None)  # start it first: start-up does not count against the time limit
            with hypothesis_storage():
                _drive(run, target, space, progress)
    except TargetError as error:
        run.error = str(error).splitlines()[0]
    finally:
        if workspace is None:  # the phase's own
            space.close()
        else:
            space.sweep()
    run.duration_s = time.perf_counter() - started
    return run


def replay_command(spec: TargetSpec, fuzz: FuzzSettings) -> str:
    """The command line that runs the same target with the same fuzz cases (the seed always shown)."""
    words = ["--fuzz", str(fuzz.count), "--seed", str(fuzz.seed)]
    if fuzz.time_limit is not None:
        words += ["--fuzz-time", f"{fuzz.time_limit:g}"]
    return spec.rerun_line(*words)
