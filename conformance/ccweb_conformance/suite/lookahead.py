"""Which source binding each scenario will use, and which conversation it wants aged, known before it runs.

Conversation IDs are derived from ``<run prefix>-<scenario number>`` and the alias (UUIDs, see
:func:`ccweb_conformance.fixtures.conversations.conversation_id`), so the source-binding steps of the
collected scenarios tell, in order, which stdio server processes the run will need; the
target can start them while earlier scenarios run. A wrong guess costs only an unused process.
The same look-ahead finds the conversations a scenario wants unchanged for some seconds
(:data:`AGED_STEP`), so the run can write them when it starts (``suite/ageing.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ccweb_conformance.engine.registry import parse
from ccweb_conformance.fixtures.conversations import conversation_id, scenario_prefix
from ccweb_conformance.fixtures.notation import ALIAS, aliases, code_points

SHARED_PREFIX = "shared"
DECOY_ALIAS = "decoy"
_BOUND_TO_ALIAS = re.compile(r'the source conversation is "(?P<alias>\w+)"')
_BOUND_TO_RAW = re.compile(r'the source conversation is the raw value "(?P<raw>.*)"')
_BOUND_TO_DECOY = "the source conversation is bound to another valid conversation"
_UNBOUND = "no source conversation is bound"
_NAMED = re.compile(r"the conversations (?P<names>.+) each hold one user message, their own name")
_AGENTS = re.compile(r"each of them is the source of an agent calling the tool \d+ times, all agents at once")
_QUOTED = re.compile(r'"(\w+)"')
AGED_STEP = parse('a conversation "{alias}" holding the user message "{content}", unchanged for {seconds:d} seconds')
"""The Given step of a conversation whose last change (modification and change time) must really be old."""


@dataclass(frozen=True)
class AgedConversation:
    """A conversation a scenario wants unchanged for ``seconds`` before its first call."""

    number: int
    """The scenario's number in the run (1-based): its conversation IDs' prefix."""
    nodeid: str
    """The scenario's pytest node ID: only that scenario adopts the file."""
    alias: str
    content: str
    seconds: int


def decoy_id(run_prefix: str) -> str:
    """The run-wide decoy conversation's ID."""
    return conversation_id(f"{run_prefix}-{SHARED_PREFIX}", DECOY_ALIAS)


def source_of(step_names: Sequence[str], prefix: str, run_prefix: str) -> str | None:
    """The source value a scenario with these steps binds last (None: unbound)."""
    source: str | None = None
    for name in step_names:
        if match := _BOUND_TO_ALIAS.fullmatch(name):
            source = conversation_id(prefix, match["alias"])
        elif match := _BOUND_TO_RAW.fullmatch(name):
            raw = code_points(match["raw"])
            source = aliases(raw, {a: conversation_id(prefix, a) for a in ALIAS.findall(raw)})
        elif name == _BOUND_TO_DECOY:
            source = decoy_id(run_prefix)
        elif name == _UNBOUND:
            source = None
    return source


def agent_sources(step_names: Sequence[str], prefix: str) -> list[str]:
    """The sources of the agents a scenario with these steps starts at once (CON-1), or none."""
    named: list[str] = []
    for name in step_names:
        if match := _NAMED.fullmatch(name):
            named = _QUOTED.findall(match["names"])
        elif _AGENTS.fullmatch(name):
            return [conversation_id(prefix, alias) for alias in named]
    return []


def scenario_sources(scenarios: Sequence[Sequence[str]], run_prefix: str) -> list[list[str | None]]:
    """Each scenario's source bindings, in run order (its step texts): its own, then its agents' (CON-1)."""
    found: list[list[str | None]] = []
    for n, steps in enumerate(scenarios, start=1):
        prefix = scenario_prefix(run_prefix, n)
        found.append([source_of(steps, prefix, run_prefix), *agent_sources(steps, prefix)])
    return found


def upcoming_sources(scenarios: Sequence[Sequence[str]], run_prefix: str) -> list[str | None]:
    """Every source binding the scenarios will use, in run order: each one's own, then its agents' (CON-1)."""
    return [source for sources in scenario_sources(scenarios, run_prefix) for source in sources]


def aged_conversations(scenarios: Sequence[tuple[Sequence[str], str]]) -> list[AgedConversation]:
    """The conversations the scenarios want aged, in run order: ``(step texts, node ID)`` pairs."""
    return [
        AgedConversation(n, nodeid, found["alias"], found["content"], found["seconds"])
        for n, (steps, nodeid) in enumerate(scenarios, start=1)
        for step in steps
        if (found := AGED_STEP.arguments(step)) is not None
    ]
