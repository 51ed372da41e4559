"""Measuring one implementation at one conversation size: floor, first calls, repeated calls, process figures."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import ccweb_spec
from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.profile.check import Oracle, arguments, differences
from ccweb_conformance.profile.conversation import at_revision
from ccweb_conformance.profile.model import SizeResult, WrongAnswer
from ccweb_conformance.profile.proc import GroupSample, sample_group
from ccweb_conformance.profile.settings import ProfileSettings
from ccweb_conformance.profile.timing import TimedChannel
from ccweb_conformance.profile.writer import ProfileFiles
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.factory import make_target
from ccweb_conformance.transport.process import one_line
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.values import TargetSpec

MIN_PHASE_CALLS = 3
"""A phase cut short by its time limit still has this many calls."""
KEPT_WRONG = 3
"""Wrong answers kept per size (the first ones); the count of checked calls covers the rest."""


@dataclass(frozen=True)
class Implementation:
    """One implementation to profile."""

    name: str
    target: TargetSpec
    is_reference: bool


@dataclass(frozen=True)
class Conversations:
    """The two conversations of one size: the large one under test and a tiny one for warming up."""

    large_id: str
    large_bytes: bytes
    tiny_id: str


@dataclass(frozen=True)
class Context:
    """What every session of a profile shares: the files, the oracle, the settings, the run's context."""

    workspace: ProfileFiles
    oracle: Oracle
    settings: ProfileSettings
    run: RunContext
    """The command's run context (``transport/run_context.py``): its targets' processes, fork server and reaping."""


class Stopped(Exception):
    """The implementation stopped answering (a crash, a timeout, a broken reply)."""


class SizeSession:
    """A fresh server of one implementation for one size; phases run in order, each at most once."""

    def __init__(
        self, implementation: Implementation, result: SizeResult, conversations: Conversations, context: Context
    ) -> None:
        self.implementation = implementation
        self.result = result
        self.conversations = conversations
        self.context = context
        self.tool = ccweb_spec.tool_definition()["name"]
        self.target: Target | None = None
        self.client: McpClient | None = None
        self.timer: TimedChannel | None = None
        self.pid: int | None = None

    @property
    def alive(self) -> bool:
        """False once the implementation stopped answering."""
        return self.result.failure is None

    def start(self) -> None:
        """Start (or reach) the server, time the floor, warm it up on the tiny conversation. TargetError escapes."""
        self.target = make_target(self.implementation.target, self.context.workspace.sessions_dir, self.context.run)
        self.client = self.target.client(None)
        self.pid = self.target.server_pid(None)  # the server this run spawned (None: not ours)
        self.timer = TimedChannel(self.client.channel)
        self.client.channel = self.timer
        self.guarded(self._warm_up)

    def _warm_up(self) -> None:
        assert self.client is not None and self.timer is not None
        for _ in range(self.context.settings.floor_calls):
            exchange = self.client.list_tools()
            if exchange.response is None:
                raise Stopped("no reply to tools/list")
            self.result.floor_ms.append(self.timer.last_seconds * 1000)
        self._call("warm-up", 1, self.conversations.tiny_id, 0)
        idle = self._sample()
        self.result.idle_bytes = None if idle is None else idle.rss_bytes

    def first_phase(self) -> None:
        """The first call on the large file, then calls each right after a change of the file (run :meth:`guarded`)."""
        large = self.conversations
        self._write(0)
        self._call("warm-up", 2, large.large_id, 0)
        started = time.monotonic()
        for change in range(1, self.context.settings.first_calls + 1):
            self._write(change)
            self.result.first_ms.append(self._call("first", change, large.large_id, change))
            if change >= MIN_PHASE_CALLS and time.monotonic() - started > self.context.settings.phase_seconds:
                break

    def repeated_phase(self) -> None:
        """Calls on the file as the last change left it (the caller waited for it to settle; run :meth:`guarded`)."""
        large = self.conversations
        revision = self.context.workspace.revisions[large.large_id]
        self._call("repeated", 0, large.large_id, revision)  # lets a cache take the settled file
        before = self._sample()
        started = time.monotonic()
        for number in range(1, self.context.settings.repeats + 1):
            self.result.repeated_ms.append(self._call("repeated", number, large.large_id, revision))
            if number >= MIN_PHASE_CALLS and time.monotonic() - started > self.context.settings.phase_seconds:
                break
        after = self._sample()
        calls = len(self.result.repeated_ms)
        if before is not None and after is not None and calls:
            read = after.read_since(before)
            if read is not None:  # counted on Linux only
                self.result.read_per_call, self.result.storage_per_call = read[0] / calls, read[1] / calls
            self.result.peak_bytes = after.peak_bytes

    def _write(self, revision: int) -> None:
        data = at_revision(self.conversations.large_bytes, revision)
        self.context.workspace.rewrite(self.conversations.large_id, data, revision)

    def _call(self, phase: str, number: int, conversation_id: str, revision: int) -> float:
        """One checked tools/call; its wire time in ms."""
        assert self.client is not None and self.timer is not None
        expected = self.context.oracle.expected(conversation_id, revision)
        exchange = self.client.call_tool(self.tool, arguments(conversation_id))
        elapsed = self.timer.last_seconds * 1000
        found = differences(exchange, expected)
        self.result.calls_checked += 1
        if found and len(self.result.wrong) < KEPT_WRONG:
            self.result.wrong.append(WrongAnswer(phase, number, revision, tuple(found)))
        return elapsed

    def _sample(self) -> GroupSample | None:
        return None if self.pid is None else sample_group(self.pid)

    def guarded(self, phase: Callable[[], None]) -> None:
        """Run ``phase`` (one of this session's) unless the implementation stopped answering; a stop is its failure."""
        if not self.alive:
            return
        try:
            phase()
        except ProtocolFailure as failure:
            self.result.failure = one_line(str(failure))
        except Stopped as stopped:
            self.result.failure = str(stopped)

    def close(self) -> None:
        """Stop the server (spawned ones) and close the connection."""
        if self.target is not None:
            self.target.close()
            self.target = None
