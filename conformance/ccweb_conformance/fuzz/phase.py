"""The fuzz phase of a run: hypothesis drives the cases in seeded batches, bounded by count and time."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, configuration, given, seed, settings

from ccweb_conformance.contract.conversations import ConversationFiles, new_run_prefix
from ccweb_conformance.errors import TargetError
from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.fuzz.execute import FuzzMismatch, Mismatch, run_case
from ccweb_conformance.fuzz.strategies import fuzz_cases
from ccweb_conformance.fuzz.sweep import sweep_cases
from ccweb_conformance.i18n import messages
from ccweb_conformance.options import RunnerOptions, command_line
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.targets import Target

BATCH = 100
"""Cases per hypothesis run; each batch has its own seed derived from the run's seed."""
EXPLICIT_TIME = 60.0
"""The time limit of ``--fuzz N`` without ``--fuzz-time``."""
SHORT_PHASE_COUNT = 60
"""Generated cases of the short phase that ends every full run (no --fuzz, no selection)."""
SHORT_PHASE_TIME = 3.0
"""Its time limit, in seconds: the default run stays fast."""
SHRINK_TIME = 30.0
"""At most this long (or the time limit, if longer) is spent shrinking a mismatch of ``--fuzz N``."""
SHORT_SHRINK_TIME = 10.0
"""The short phase shrinks for at most this long."""


@dataclass(frozen=True)
class FuzzSettings:
    """``--fuzz N --seed S --fuzz-time SECONDS``."""

    count: int
    seed: int = 0
    time_limit: float = EXPLICIT_TIME
    shrink_time: float = SHRINK_TIME
    sweep: bool = True
    """Start with the argument sweep (every limit, the maxChars edges) before the generated cases."""


def settings_for(options: RunnerOptions) -> FuzzSettings | None:
    """The fuzz phase these options ask for: ``--fuzz N``, the short default phase, or None (off)."""
    if options.fuzz == 0:
        return None
    if options.fuzz is None:
        if options.tags or options.keyword:
            return None  # a selection is a narrow run: fuzz only when asked
        time_limit = options.fuzz_time if options.fuzz_time is not None else SHORT_PHASE_TIME
        return FuzzSettings(SHORT_PHASE_COUNT, options.seed, time_limit, SHORT_SHRINK_TIME)
    return FuzzSettings(options.fuzz, options.seed, options.fuzz_time or EXPLICIT_TIME)


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
    target_description: str = ""

    @property
    def passed(self) -> bool:
        """No mismatch and no error."""
        return self.mismatch is None and self.error is None

    @property
    def throughput(self) -> float:
        """Cases per second over the phase's wall time."""
        return self.cases_run / self.duration_s if self.duration_s > 0 else 0.0


def _batch_seed(run_seed: int, batch: int) -> int:
    digest = hashlib.sha256(f"ccweb-fuzz:{run_seed}:{batch}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _case_digest_line(case: FuzzCase) -> bytes:
    return json.dumps(case.to_json(), sort_keys=True, ensure_ascii=True).encode("ascii") + b"\n"


class _Driver:
    """Runs batches against one target; remembers the smallest mismatch seen."""

    def __init__(self, run: FuzzRun, target: Target, files: ConversationFiles) -> None:
        self.run = run
        self.target = target
        self.files = files
        self.started = time.perf_counter()
        self.shrink_deadline = 0.0
        self.hasher = hashlib.sha256()

    def _out_of_time(self) -> bool:
        now = time.perf_counter()
        if self.run.mismatch is not None:
            return now > self.shrink_deadline
        if now - self.started > self.run.settings.time_limit:
            self.run.timed_out = True
            return True
        return False

    def check(self, case: FuzzCase) -> None:
        """The property: the implementation answers like the reference core."""
        if self.run.error is not None or self._out_of_time():
            return
        if self.run.mismatch is None:
            self.run.cases_run += 1
            self.hasher.update(_case_digest_line(case))
        else:
            self.run.shrink_calls += 1
        try:
            mismatch = run_case(case, self.target, self.files)
        except TargetError as error:
            self.run.error = str(error).splitlines()[0]
            return
        if mismatch is not None:
            if self.run.mismatch is None:
                shrink = max(self.run.settings.shrink_time, self.run.settings.time_limit)
                self.shrink_deadline = time.perf_counter() + shrink
            self.run.mismatch = mismatch
            raise FuzzMismatch(mismatch)

    def batch(self, batch_seed: int, size: int) -> None:
        """One seeded hypothesis run of ``size`` cases, shrinking a failure."""

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
            self.check(case)

        try:
            property_()
        except FuzzMismatch as failure:
            self.run.mismatch = failure.mismatch
        except Exception:  # hypothesis gave up on the final replay (a flaky server): keep the smallest seen
            if self.run.mismatch is None and self.run.error is None:
                raise

    def sweep(self) -> None:
        """Every limit and the maxChars edges on one conversation, before anything is generated."""
        for case in sweep_cases():
            if not self.run.passed or time.perf_counter() - self.started > self.run.settings.time_limit:
                return
            self.run.sweep_calls += 1
            try:
                mismatch = run_case(case, self.target, self.files)
            except TargetError as error:
                self.run.error = str(error).splitlines()[0]
                return
            if mismatch is not None:
                self.run.mismatch = mismatch

    def drive(self) -> None:
        """The sweep, then batches until the count, the time limit, a mismatch or an error."""
        if self.run.settings.sweep:
            self.sweep()
        count, number = self.run.settings.count, 0
        try:
            while number * BATCH < count and self.run.passed and not self.run.timed_out:
                self.batch(_batch_seed(self.run.settings.seed, number), min(BATCH, count - number * BATCH))
                number += 1
        finally:
            self.run.digest = self.hasher.hexdigest()


@contextmanager
def hypothesis_storage() -> Iterator[None]:
    """Hypothesis's caches (unicode tables, constants) go to the user's cache folder, never a .hypothesis/ here."""
    home = "__hypothesis_home_directory"
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY") or vars(configuration).get(home) is not None:
        yield  # the user chose a place
        return
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ccweb-conformance" / "hypothesis"
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        cache = Path(tempfile.gettempdir()) / f"ccweb-conformance-hypothesis-{os.getuid()}"
    configuration.set_hypothesis_home_dir(cache)
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(None)


def run_fuzz(options: RunnerOptions, fuzz: FuzzSettings) -> FuzzRun:
    """The fuzz phase against a target built from ``options`` (its own one, started and stopped here)."""
    run = FuzzRun(fuzz, replay_command(options, fuzz))
    own_dir = None if options.sessions_dir is not None else Path(tempfile.mkdtemp(prefix="ccweb-conformance-fuzz-"))
    sessions_dir = options.sessions_dir or own_dir
    assert sessions_dir is not None
    started = time.perf_counter()
    try:
        with make_target(options, sessions_dir) as target:
            run.target_description = target.description
            target.client(None)  # start it first: start-up does not count against the time limit
            files = ConversationFiles(sessions_dir, f"{new_run_prefix()}-fuzz")
            try:
                with hypothesis_storage():
                    _Driver(run, target, files).drive()
            finally:
                files.remove_all()
    except TargetError as error:
        run.error = str(error).splitlines()[0]
    finally:
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)
    run.duration_s = time.perf_counter() - started
    return run


def replay_command(options: RunnerOptions, fuzz: FuzzSettings) -> str:
    """The command line that runs the same target with the same fuzz cases (the seed always shown)."""
    words = ["ccweb-conformance", "run", *command_line(options, ("target", "binding"))]
    words += ["--fuzz", str(fuzz.count), "--seed", str(fuzz.seed)]
    if fuzz.time_limit != EXPLICIT_TIME:
        words += ["--fuzz-time", f"{fuzz.time_limit:g}"]
    hidden = [f"--header {h.split(':', 1)[0]}" for h in options.header]
    hidden += [f"--env {e.split('=', 1)[0]}" for e in options.env]  # their values are shown as ***
    supply = f"  # {messages()('fuzz.replay_supply', names=', '.join(hidden))}" if hidden else ""
    return shlex.join(words) + supply
