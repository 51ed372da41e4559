"""What a run's scenarios play on, for the engine's run and the pytest plugin alike: the workspace opened, the
conversations that must age written, the target started (or why it could not be), each scenario's files and World,
the shared decoy conversation, and the end (the whole-run audit, the target stopped, the workspace swept or closed).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ccweb_conformance.checks.ledger import SessionsLedger, unlistable
from ccweb_conformance.checks.outcome import declared_schema_text
from ccweb_conformance.errors import HandshakeViolation, TargetError
from ccweb_conformance.fixtures.conversations import ConversationFiles, one_message_session
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite.ageing import EarlyFiles, write_early
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.suite.lookahead import DECOY_ALIAS, SHARED_PREFIX, aged_conversations, decoy_id, upcoming_sources
from ccweb_conformance.suite.planned import PlannedScenario
from ccweb_conformance.suite.world import CallObserver, World, declared_output_schema
from ccweb_conformance.transport import limits, signals
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import TargetSpec

__all__ = ["Stage", "Stopped"]


@dataclass(frozen=True)
class Stopped:
    """Why the run cannot go on once it tried to start: its exit code (1 the handshake, 2 the rest) and line."""

    code: int
    line: str


@dataclass
class Stage:
    """One run's workspace, ledger, target and shared files; ``owned``: the run made the workspace, so closes it
    (a command's own is swept here, and closed by the command once every process has stopped)."""

    context: RunContext
    workspace: Workspace
    owned: bool
    ledger: SessionsLedger | None = None
    target: Target | None = None
    early: dict[int, EarlyFiles] = field(default_factory=dict)
    started: bool = False
    """The target started and answered: the run's audit judges what it did."""
    decoy: tuple[str, ConversationFiles] | None = None
    schema: tuple[dict[str, Any] | None, str | None] | None = None
    """The tool's declared outputSchema and its canonical JSON text, listed when the first scenario starts (PLC-4)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """One decoy, however many scenarios running together ask for it."""

    def start(self, spec: TargetSpec, collector: ResultCollector, *, age: bool) -> Stopped | None:
        """Open the workspace, write the conversations the planned scenarios want aged (``age``; not for a recorded
        export, whose cases hold only what their scenario wrote), start the target; None when the run goes on."""
        planned = collector.planned
        try:
            sessions_dir = self.workspace.open()
            problem = unlistable(sessions_dir)
            if problem is not None:  # the runner's environment, not RO-2: exit 2
                collector.startup_error = problem
                return Stopped(2, problem)
            own = self.workspace.judged_prefix
            ledger = self.ledger = SessionsLedger(sessions_dir, own_prefix=own, waits=self.context.waits)
            if age:
                aged = aged_conversations([(p.steps, p.nodeid) for p in planned])
                self.early = write_early(self.workspace, aged)
                for made in self.early.values():
                    ledger.register(made.files)
            self.target = make_target(spec, sessions_dir, self.context, decoy_source=decoy_id(self.workspace.prefix))
            self.target.client(None)  # start it now: a target that cannot start stops the run (exit code 2)
            collector.note_eras(self.target)
            self.target.prepare(upcoming_sources([p.steps for p in planned], self.workspace.prefix))
        except HandshakeViolation as error:
            if self.target is not None:
                collector.describe(self.target)
            collector.handshake_failed(error)
            return Stopped(1, f"the implementation broke the protocol during the handshake: {error}")
        except TargetError as error:
            limit = limits.process_limit_problem(error, exhausted=self.context.exhausted)  # no thread: the runner's
            collector.startup_error = limit or (str(error).splitlines()[0] if str(error) else type(error).__name__)
            return Stopped(2, limit or f"the implementation could not be started or reached: {error}")
        collector.describe(self.target)
        collector.bundled_reference = not (spec.stdio or spec.url or spec.http_cmd)
        self.started = True
        return None

    def files(self, number: int, planned: PlannedScenario) -> ConversationFiles:
        """Scenario ``number``'s conversation files (its place in the planned order, 1-based, its IDs' prefix),
        registered with the ledger: those written for it when the run started (taken from ``early``), else new
        ones. Files written for another scenario under this number (a guess gone wrong) are removed first."""
        assert self.ledger is not None
        made = self.early.pop(number, None)
        if made is not None and made.nodeid == planned.nodeid:
            return made.files
        if made is not None:
            made.files.remove_all()
            self.ledger.unregister(made.files)
        files = self.workspace.scenario(number)
        self.ledger.register(files)
        return files

    def world(
        self, planned: PlannedScenario, made: ConversationFiles, collector: ResultCollector, seen: CallObserver | None
    ) -> World:
        """The scenario's World on ``made``, attached to it in the collector, seen by ``export``'s recorder."""
        assert self.target is not None
        if self.schema is None:
            declared = declared_output_schema(self.target)
            self.schema = (declared, None if declared is None else declared_schema_text(declared))
        declared, text = self.schema
        world = World(self.target, made, ledger=self.ledger, output_schema=declared, output_schema_text=text)
        world.requirements = planned.requirements
        world.observer = seen
        if seen is not None:
            seen.started(world)
        collector.attach(planned, world)
        return world

    def retire(self, world: World | None, made: ConversationFiles) -> None:
        """A scenario ended: its clean-ups run, its files kept, fingerprinted, until the whole-run audit."""
        assert self.ledger is not None
        try:
            for cleanup in reversed(world.cleanups if world is not None else []):
                cleanup()
        finally:
            self.ledger.retire(made)

    def decoy_id(self) -> str:
        """The run's shared decoy: a valid conversation bound as source where a scenario must not fall back (one
        for the run, so that stdio scenarios needing "some other valid source" reuse one server process)."""
        with self.lock:
            if self.decoy is None:
                assert self.ledger is not None
                part = self.workspace.part(SHARED_PREFIX)
                self.ledger.register(part)
                decoy = part.new_id(DECOY_ALIAS)
                part.write_session(decoy, one_message_session(decoy, "decoy"))
                self.decoy = (decoy, part)
            return self.decoy[0]

    def end(self, collector: ResultCollector) -> None:
        """The decoy removed, the whole-run audit (when the target started), the target stopped, the workspace
        swept (or closed), shielded from signals; whatever failed on the way, the rest still happens."""
        with signals.shielded():
            try:
                if self.decoy is not None and self.ledger is not None:
                    self.decoy[1].remove_all()
                    self.ledger.unregister(self.decoy[1])
                if self.started and self.ledger is not None and self.target is not None:
                    collector.final_audit(self.ledger, self.target)
            finally:
                try:
                    if self.target is not None:
                        self.target.close()
                finally:
                    if self.owned:
                        self.workspace.close()
                    else:
                        self.workspace.sweep()
