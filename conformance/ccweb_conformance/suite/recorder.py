"""Records each scenario of a run as a replayable case: folder operations, calls, expected results.

The observer of ``ccweb-conformance export``'s run: the suite runs against the bundled
reference (the oracle), and every scenario that passed becomes either a *function-level* case
(what a harness replays without MCP: files written, then calls of the tool's function with a
source and arguments, each with the object it must return) or an *MCP-level* scenario with the
reason it needs an MCP client (``ccweb-conformance run``).
"""

from __future__ import annotations

import dataclasses
import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.case_rules import MCP_LEVEL_REASONS, expected_object, mcp_level_reason
from ccweb_conformance.fixtures.tree import Entry, StatKey, operations, snapshot
from ccweb_conformance.reports.case_export import RecordedCase
from ccweb_conformance.suite.lookahead import decoy_id
from ccweb_conformance.suite.planned import PlannedScenario
from ccweb_conformance.suite.world import World
from ccweb_conformance.transport.client import OMIT
from ccweb_conformance.transport.exchange import Exchange

EXPORT_RUN_PREFIX = "ccwk-00000000"
"""The run prefix of an export, so that the conversation IDs (and the document) are the same every time."""


@dataclass
class _Scenario:
    root: Path
    tree: dict[str, Entry] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)
    calls: int = 0
    in_flight: int = 0
    reasons: list[str] = field(default_factory=list)
    skip: frozenset[str] = frozenset()
    """What the folder held when the scenario began (other scenarios' entries): never looked at again."""


class CaseRecorder:
    """Sees every tool call of every scenario and keeps the passing scenarios as cases."""

    def __init__(self) -> None:
        self.cases: list[RecordedCase] = []
        self.not_passed: list[str] = []
        self._scenarios: dict[int, _Scenario] = {}
        self._lock = threading.Lock()
        self._files: dict[str, tuple[StatKey, Entry]] = {}
        """The bytes of files already read, while their times do not move (fixtures.tree.snapshot)."""

    def before_call(self, world: World, name: str, arguments: Any) -> None:
        """Record what changed in the folder since the last call, then the call itself."""
        with self._lock:
            state = self._scenarios[id(world)]  # started() saw it begin (the World's observer, suite/stage.py)
            state.in_flight += 1
            if state.in_flight > 1:
                state.reasons.append(MCP_LEVEL_REASONS["concurrent"])
            reason = mcp_level_reason(name, arguments)
            if reason is not None:
                state.reasons.append(reason)
            now = self._view(world, state.skip)
            state.steps.extend(operations(state.tree, now, state.root))
            state.tree = now
            call: dict[str, Any] = {"op": "call", "source": world.source}
            if arguments is not OMIT:
                call["arguments"] = arguments
            state.steps.append(call)
            state.calls += 1

    def started(self, world: World) -> None:
        """A scenario begins: what the folder holds now (other scenarios' files, kept for the run's audit) is
        not part of its case, except the run's shared decoy conversation, which any scenario may bind."""
        sessions = world.files.sessions_dir
        state = self._scenarios[id(world)] = _Scenario(sessions.parent)
        everything = snapshot(sessions.parent, self._files)
        decoy = f"{decoy_id(EXPORT_RUN_PREFIX)}.json"
        link = everything.get(sessions.name)
        real = os.path.normpath(link.link) if link is not None and link.kind == "link" else sessions.name
        state.skip = frozenset(
            path for path in everything if path not in (sessions.name, real) and not path.endswith(f"/{decoy}")
        )
        state.tree = self._view(world, state.skip)
        state.tree.pop(f"{sessions.name}/{decoy}", None)

    def _view(self, world: World, skip: frozenset[str] = frozenset()) -> dict[str, Entry]:
        """The scenario's root folder as a harness makes it: a sessions folder reached through a link (the
        runner's own directory is, so that a server must resolve its root) is shown as the folder itself."""
        sessions = world.files.sessions_dir
        tree = snapshot(sessions.parent, self._files, skip)
        link = tree.get(sessions.name)
        if link is None or link.kind != "link":
            return tree
        real = os.path.normpath(link.link)
        view = {sessions.name: Entry("dir", mode=stat.S_IMODE(os.stat(sessions).st_mode))}
        for path, entry in tree.items():
            if path in (sessions.name, real):
                continue
            shown = entry
            if entry.kind == "link":  # a link written through the real folder's name goes through the folder's
                parts = [sessions.name if part == real else part for part in entry.link.split("/")]
                shown = dataclasses.replace(entry, link="/".join(parts))
            view[sessions.name + path[len(real) :] if path.startswith(f"{real}/") else path] = shown
        return view

    def after_call(self, world: World, exchange: Exchange) -> None:
        """Attach the reference's answer to the call it belongs to."""
        with self._lock:
            state = self._scenarios[id(world)]
            state.in_flight -= 1
            if self._view(world, state.skip) != state.tree:  # the reference only reads: someone wrote during the call
                state.reasons.append(MCP_LEVEL_REASONS["timing"])
            expected, reason = expected_object(exchange)
            if reason is not None:
                state.reasons.append(reason)
            pending = [s for s in state.steps if s["op"] == "call" and "expect" not in s]
            if pending and expected is not None:
                pending[-1]["expect"] = expected

    def finished(self, planned: PlannedScenario, status: str, world: World | None) -> None:
        """A scenario ended (``status``: passed, skipped or failed): a case, an MCP-level scenario, or a failure."""
        by_name = ccweb_spec.case_levels().scenarios.get(planned.nodeid)
        if by_name is not None:
            self.cases.append(self._without_world(planned, by_name))
        elif status == "skipped":
            self.cases.append(self._without_world(planned, "transport-only"))
        elif status != "passed":
            self.not_passed.append(planned.nodeid)
        elif world is None:
            self.cases.append(self._without_world(planned))
        else:
            self.cases.append(self._case(planned, world))

    @staticmethod
    def _without_world(planned: PlannedScenario, reason: str = "no-call") -> RecordedCase:
        named = (planned.nodeid, planned.feature_file, planned.name)
        return RecordedCase(*named, planned.requirements, [], MCP_LEVEL_REASONS[reason])

    def _case(self, planned: PlannedScenario, world: World) -> RecordedCase:
        named = (planned.nodeid, planned.feature_file, planned.name)
        state = self._scenarios.pop(id(world))
        reasons = list(state.reasons)
        if len(world.exchanges) != state.calls:
            reasons.append(MCP_LEVEL_REASONS["other-requests"])
        if state.calls == 0:
            reasons.append(MCP_LEVEL_REASONS["no-call"])
        tags = planned.requirements
        levels = ccweb_spec.case_levels()
        reasons += [MCP_LEVEL_REASONS[k] for t in tags if (k := levels.scenario_reason(t)) is not None]
        claims = tuple(t for t in tags if levels.claim_reason(t) is None)
        if not claims:
            reasons += [MCP_LEVEL_REASONS[k] for t in tags if (k := levels.claim_reason(t)) is not None]
        if reasons:
            return RecordedCase(*named, tags, [], reasons[0])
        return RecordedCase(*named, claims, state.steps, None)
