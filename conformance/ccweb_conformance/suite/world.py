"""The state of one scenario: its conversations, source binding and exchanges."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

import ccweb_spec
from ccweb_conformance.checks.attribution import ERA_REQUIREMENT
from ccweb_conformance.checks.failures import ConformanceFailure, fail
from ccweb_conformance.checks.ledger import Fingerprint, SessionsLedger, fingerprints, listing, moved, runner_writing
from ccweb_conformance.checks.outcome import ToolOutcome, json_equal, tool_outcome
from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.suite.eras import answer_differences, reply_kind_difference
from ccweb_conformance.transport.client import OMIT, McpClient
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.parallel import overlapping, pipelined
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import Target
from ccweb_conformance.transport.toollist import ToolListing, list_all_tools

TOOL_NAME = ccweb_spec.TOOL_NAME


def snapshot(sessions_dir: Path, ours: list[Path]) -> dict[str, Any]:
    """Every name in the directory at any depth, and full fingerprints of our files and folders."""
    return {"names": sorted(listing(sessions_dir)), "fingerprints": fingerprints(sessions_dir, ours)}


@dataclass(frozen=True)
class _OtherEraCall:
    """The same call in the other era, sent together with the first: its reply (ended) and its client."""

    reply: Future[Exchange]
    client: McpClient


class CallObserver(Protocol):
    """Sees every tool call a scenario makes (the case export records them); never changes them."""

    def started(self, world: World) -> None:
        """Called when a scenario's state is made, before its first step."""

    def before_call(self, world: World, name: str, arguments: Any) -> None:
        """Called just before a tool call is sent."""

    def after_call(self, world: World, exchange: Exchange) -> None:
        """Called with the exchange once its reply was read and recorded."""


@dataclass
class World:
    """One scenario's state, shared by its steps."""

    target: Target
    files: ConversationFiles
    ids: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    lane: int = 0
    """Which connection of its binding the scenario uses: 0, or another while scenarios run together (``--jobs``)."""
    spread: tuple[int, ...] = ()
    """More lanes of its binding the scenario holds (``--jobs``): its calls in flight together are dealt over them."""
    exchanges: list[Exchange] = field(default_factory=list)
    outcomes: list[ToolOutcome] = field(default_factory=list)
    tools_exchange: Exchange | None = None
    tool_listing: ToolListing | None = None
    """Every page of the scenario's last tools/list (``tools_exchange`` is its last page)."""
    saved_snapshot: dict[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    """The tool's declared outputSchema, listed once per run (PLC-4); None when it declares none."""
    output_schema_text: str | None = None
    """``output_schema`` as its canonical JSON text (``outcome.declared_schema_text``), made once per run."""
    ledger: SessionsLedger | None = None
    """What the sessions directory should hold (RO-2); None outside a run of the suite."""
    observer: CallObserver | None = None
    """Sees every tool call (``ccweb-conformance export``); None in a normal run."""
    other_era_exchange: Exchange | None = None
    """The last call repeated in the other era the server speaks (D-16), if any."""
    asked: list[tuple[str, ToolOutcome]] = field(default_factory=list)
    """Answers to calls in flight together (CON-1), each with the alias of the conversation its request named."""
    rows: list[tuple[str, str]] = field(default_factory=list)
    """Conversations made one per table row (alias, the row as written), for calls in flight together."""
    together: list[list[ToolOutcome]] = field(default_factory=list)
    """Per era, the answers to the calls made for ``rows``, in row order."""
    eras_answer_alike: bool = True
    """False where answers may differ from call to call (saves in progress): each era's answers are checked apart."""
    other_era_outcomes: list[ToolOutcome] = field(default_factory=list)
    """The other era's answers when they are not compared with the first era's (``eras_answer_alike`` False)."""
    held_calls: int = 0
    """Calls made during saves the runner held torn for a set time (STO-5)."""
    unjudged_calls: int = 0
    """Of those, the calls whose every save the runner completed late: they kept no answer and judge nothing."""
    entry_watch: Any = None
    """The watcher of the sessions directory's entries, once a step started it (RO-2)."""
    cancelled: Any = None
    """The call a step cancelled while in flight (PROTO-5), once one did."""
    era_disagreement: ConformanceFailure | None = None
    """The first call the two eras answered differently (D-16). From that call on the steps judge the other era's
    answers, so a bug of one era fails the check it breaks; when they all pass, the first era's answer was the
    wrong one and this failure is raised when the scenario ends (:func:`raise_era_disagreement`)."""
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    """Run when the scenario ends, last first (watchers the steps started)."""
    requirements: tuple[str, ...] = ()
    """The requirements the scenario is tagged with, in spec order (whom a check may charge)."""

    @property
    def context(self) -> RunContext:
        """The run's context (its target's): the contract's waits, what the run started, the results judged."""
        return self.target.context

    def outcome_of(self, exchange: Exchange) -> ToolOutcome:
        """:func:`tool_outcome` of a tools/call reply, against the declared outputSchema (PLC-4), each distinct result
        judged once in the run."""
        return tool_outcome(exchange, self.output_schema_text, self.context.seen_results)

    def client(self) -> McpClient:
        """The client for the current source binding, in the scenario's lane."""
        return self.target.client(self.source, self.lane)

    def record(self, exchange: Exchange) -> Exchange:
        """Keep an exchange for the transcript; any message breaking JSON-RPC or MCP fails the scenario (PROTO-1)."""
        self.exchanges.append(exchange)
        if exchange.violations:
            raise fail(
                "PROTO-1: a message received breaks JSON-RPC 2.0 or the MCP schema: "
                + "; ".join(exchange.violations[:5]),
                expected="valid JSON-RPC and MCP, the reply echoing the request id",
                actual=exchange.response if exchange.response is not None else exchange.received_text,
                exchange=exchange,
                proves="PROTO-1",
            )
        return exchange

    def list_tools(self) -> ToolListing:
        """``tools/list``, every page (the runner follows nextCursor), kept; where the server speaks two eras,
        the other era must list the same tool (D-16)."""
        listing = self.listed(self.client())
        if self.target.other_era is not None:
            client = self.target.other_client(self.source, self.lane)
            other = self.listed(client)
            first, second = listing.named(TOOL_NAME), other.named(TOOL_NAME)
            if max(len(first), len(second)) > 1:  # TOOL-1's own fault, whichever era shows it (a list that grows)
                raise fail(
                    f"tools/list lists {TOOL_NAME} {len(first)} times in one era and {len(second)} times in the other "
                    f"({self._era_names(client)}): a tool is listed exactly once",
                    expected=f"one {TOOL_NAME}",
                    actual=second if len(second) > 1 else first,
                    exchange=other.exchanges[-1] if len(second) > 1 else listing.exchanges[-1],
                    proves="TOOL-1",
                )
            if not json_equal(first, second):
                raise fail(
                    f"D-16: tools/list describes {TOOL_NAME} differently in the two eras ({self._era_names(client)})",
                    expected=first,
                    actual=second,
                    exchange=other.exchanges[-1],
                    proves=ERA_REQUIREMENT,
                )
        return listing

    def listed(self, client: McpClient) -> ToolListing:
        """``tools/list`` on ``client``, every page, each exchange kept (see :meth:`record`)."""
        listing = list_all_tools(client)
        for exchange in listing.exchanges:
            self.record(exchange)
        return listing

    def call(self, arguments: Any = OMIT, name: str = TOOL_NAME) -> Exchange:
        """Call a tool and keep the exchange: RO-1 right after it and, where the server speaks two eras, the
        same call in the other era, sent at the same time on a connection of its own (D-16)."""
        if self.observer is not None:
            self.observer.before_call(self, name, arguments)
        # RO-1 right after the call: the scenario's files are as before it; while the runner's own saves are under way
        # (D-14) there is nothing to compare, and no time to lose
        before = None if runner_writing() else self._fingerprints()
        first, other = self._both_eras(name, arguments)
        exchange = self.record(first)
        if before is not None:
            self._check_unchanged(
                before,
                exchange,
                "RO-1: the call changed files of the sessions directory (the tool is read-only)",
                excused_while_writing=True,
            )
        if answered_unreadable(exchange) and not runner_writing():
            self.context.waits.record("re-read window", exchange.elapsed_ms / 1000.0)
        if self.observer is not None:
            self.observer.after_call(self, exchange)
        self.other_era_exchange = self._checked_other_era(exchange, other)
        return exchange

    def _both_eras(self, name: str, arguments: Any) -> tuple[Exchange, _OtherEraCall | None]:
        """The call, and the same call in the other era the server speaks (None: none), in flight together.

        The other era's call runs on a thread of its own and has ended when this returns, so a call costs the
        slower era's time, not both (a server's re-read window, D-14, is waited for once). An exception of the
        first era's call is raised here; the other era's is raised where its reply is read.
        """
        client = self.client()
        if self.target.other_era is None:
            return client.call_tool(name, arguments), None
        other_client = self.target.other_client(self.source, self.lane)
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ccweb-other-era") as pool:
            other = pool.submit(other_client.call_tool, name, arguments)
            first = client.call_tool(name, arguments)
        return first, _OtherEraCall(other, other_client)

    def _fingerprints(self) -> dict[str, Fingerprint | None]:
        """Times and inode of the scenario's files (any write moves ctime)."""
        return fingerprints(self.target.sessions_dir, self.files.created(), digest=False)

    def _check_unchanged(
        self, before: dict[str, Fingerprint | None], exchange: Exchange, message: str, *, excused_while_writing: bool
    ) -> None:
        """RO-1: the scenario's files are as ``before`` the calls were made, else ``message`` (a change is excused
        while the runner's own saves are under way, where ``excused_while_writing``)."""
        changed = moved(before, self._fingerprints())
        if changed and not (excused_while_writing and runner_writing()):
            raise fail(
                message,
                expected="identical bytes, size, mtime, ctime and inode",
                actual=changed,
                exchange=exchange,
                proves="RO-1",
            )

    def _checked_other_era(self, first: Exchange, pending: _OtherEraCall | None) -> Exchange | None:
        """The other era's reply, recorded and of the same kind as the first (a tool result or an error)."""
        if pending is None:
            return None
        other = self.record(pending.reply.result())
        difference = reply_kind_difference(first, other)
        if difference is not None:
            raise fail(
                f"D-16: the same call gave {difference} ({self._era_names(pending.client)})",
                expected=first.response,
                actual=other.response,
                exchange=other,
                proves=ERA_REQUIREMENT,
            )
        return other

    def _era_names(self, other: McpClient) -> str:
        return f"{self.client().protocol_version} → {other.protocol_version}"

    def call_and_read(self, arguments: Any = OMIT) -> ToolOutcome:
        """Call the tool and read its result object (PLC-1, PLC-2), checked the same in the other era."""
        outcome = self.outcome_of(self.call(arguments))
        if self.other_era_exchange is None:
            self.outcomes.append(outcome)
            return outcome
        other = self.outcome_of(self.other_era_exchange)
        if not self.eras_answer_alike:
            self.outcomes.append(outcome)
            self.other_era_outcomes.append(other)
            return outcome
        if self.era_disagreement is None and answer_differences(outcome, other):
            client = self.target.other_client(self.source, self.lane)
            self.era_disagreement = fail(
                f"D-16: the same call answered differently in the two eras ({self._era_names(client)}); "
                f"the scenario's checks passed on the {client.protocol_version} answers",
                expected=other.result,
                actual=outcome.result,
                exchange=outcome.exchange,
                compared=True,
                proves=ERA_REQUIREMENT,
            )
        judged = other if self.era_disagreement is not None else outcome
        self.outcomes.append(judged)
        return judged

    def call_together(self, calls: list[dict[str, Any]]) -> list[list[ToolOutcome]]:
        """Independent calls in flight together: one list of outcomes per era the run tests, in call order.

        For calls whose only cost is the server's re-read window (D-14): pipelined on the source's
        connection of each era (over HTTP, POSTed at once), both eras at the same time, so N windows cost one;
        with ``spread`` lanes (``--jobs``), dealt in turn over that many more connections, which a stdio server
        answers side by side.
        A server may still answer them one after the other: each answer may take the timeout after the one
        before. RO-1 is checked once, around them all. The observer (the case export) sees the calls as the
        sequence of single calls they are equivalent to.
        """
        eras = [self.target.client] if self.target.other_era is None else [self.target.client, self.target.other_client]
        lanes = [self.lane, *self.spread][: max(len(calls), 1)]
        width = len(lanes)
        before = self._fingerprints()
        started = time.perf_counter()
        chunks = overlapping(
            [
                partial(_pipelined_on, connect, self.source, lane, calls[n::width])
                for connect in eras
                for n, lane in enumerate(lanes)
            ]
        )
        per_era = [_interleaved(chunks[era * width : (era + 1) * width]) for era in range(len(eras))]
        if any(answered_unreadable(exchange) for exchange in per_era[0]):
            self.context.waits.record("re-read window", time.perf_counter() - started)
        recorded = [[self.record(exchange) for exchange in exchanges] for exchanges in per_era]
        self._check_unchanged(
            before,
            recorded[0][-1],
            "RO-1: the calls changed files of the sessions directory (the tool is read-only)",
            excused_while_writing=False,
        )
        if self.observer is not None:
            for arguments, exchange in zip(calls, recorded[0], strict=True):
                self.observer.before_call(self, TOOL_NAME, arguments)
                self.observer.after_call(self, exchange)
        return [[self.outcome_of(exchange) for exchange in exchanges] for exchanges in recorded]

    def last_outcome(self) -> ToolOutcome:
        """The most recent tool result."""
        if not self.outcomes:
            raise AssertionError("the scenario made no tool call before this step")
        return self.outcomes[-1]


def answered_unreadable(exchange: Exchange) -> bool:
    """Whether the reply is the tool error conversation_unreadable, wherever the result object was placed."""
    try:
        outcome = tool_outcome(exchange)
    except AssertionError:  # no result object to read: nothing was waited for
        return False
    return outcome.error_mismatch("conversation_unreadable") != "code"


def _pipelined_on(
    connect: Callable[[str | None, int], McpClient], source: str | None, lane: int, calls: list[dict[str, Any]]
) -> list[Exchange]:
    """``calls`` pipelined on the connection of ``source`` in ``lane``, connected first if need be."""
    return pipelined(connect(source, lane), TOOL_NAME, calls, per_answer=True)


def _interleaved(chunks: list[list[Exchange]]) -> list[Exchange]:
    """The answers of calls dealt in turn over ``len(chunks)`` connections, back in call order."""
    width = len(chunks)
    return [chunks[n % width][n // width] for n in range(sum(len(chunk) for chunk in chunks))]


def audit_sessions_dir(world: World, when: str) -> None:
    """RO-2, whole: the sessions directory holds what was there before plus what the runner wrote."""
    if world.ledger is None:
        return
    audit = world.ledger.audit(contents=False)  # names now; contents once, in the whole-run audit
    if not audit.clean:
        raise fail(
            f"RO-2: the sessions directory holds entries the runner did not write ({when}); "
            "something the server did earlier in the run changed it",
            expected="only what was there before the run and the runner's own files",
            actual=audit.phrases(),  # worded by the reports, in their language
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="RO-2",
        )


def declared_output_schema(target: Target) -> dict[str, Any] | None:
    """The outputSchema the tool declares in tools/list, or None (none declared, or no answer)."""
    try:
        listing = list_all_tools(target.client(None))
    except Exception:  # the scenarios report a target that does not answer; PLC-4 then has nothing to check
        return None
    schema = next((tool.get("outputSchema") for tool in listing.named(TOOL_NAME)), None)
    return schema if isinstance(schema, dict) else None


def raise_era_disagreement(world: World) -> None:
    """At a scenario's end: the eras answered differently and the other era's answers passed every check."""
    if world.era_disagreement is not None:
        raise world.era_disagreement
