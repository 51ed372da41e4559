"""Source bindings known before the scenarios run, and stdio processes started for them early."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from paths import REPO
from pytest_bdd.feature import get_features

from ccweb_conformance.cli import main
from ccweb_conformance.fixtures.conversations import conversation_id
from ccweb_conformance.suite.lookahead import agent_sources, decoy_id, scenario_sources, source_of, upcoming_sources
from ccweb_conformance.suite.world import TOOL_NAME
from ccweb_conformance.transport.targets import StdioTarget, reference_command

FEATURES = REPO / "features" / "ccweb_features"


def test_source_of_follows_the_last_binding_step():
    steps = ['a conversation "alpha" with the messages:', 'the source conversation is "alpha"']
    assert source_of(steps, "run-007", "run") == conversation_id("run-007", "alpha")
    assert source_of([*steps, "no source conversation is bound"], "run-007", "run") is None
    raw = 'the source conversation is the raw value "{alpha}/../\\u{3000}!"'
    assert source_of([raw], "run-007", "run") == conversation_id("run-007", "alpha") + "/../\u3000!"
    decoy = "the source conversation is bound to another valid conversation"
    assert source_of([decoy], "run-007", "run") == decoy_id("run") == conversation_id("run-shared", "decoy")
    assert source_of(["I list the tools"], "run-007", "run") is None


def test_the_which_conversation_feature_binds_the_predicted_sources():
    [feature] = get_features([str(FEATURES / "ac02_which_conversation.feature")])
    scenarios = [
        [step.name for step in template.render(row).steps]
        for template in feature.scenarios.values()
        for row in ([c for e in template.examples for c in e.as_contexts()] or [{}])
    ]
    predicted = [own for own, *_ in scenario_sources(scenarios, "run")]
    assert predicted[:7] == [
        conversation_id("run-001", "alpha"),
        conversation_id("run-002", "alpha"),
        None,
        None,
        "",
        "../..",
        "!?_* .",
    ]
    assert predicted.count(conversation_id("run-shared", "decoy")) == 4


def test_a_prepared_process_is_used_for_its_source_and_nothing_is_left(tmp_path):
    target = StdioTarget(reference_command(), tmp_path)
    try:
        target.prepare(["first", "second"])
        started = {source: future.result() for (source, _), future in target._pool._prepared.items()}
        assert sorted(target._pool._prepared) == [("first", 0), ("second", 0)]  # each binding's lane 0
        pids = []
        for source in ("first", "second"):
            exchange = target.client(source).call_tool(TOOL_NAME, {})
            error = exchange.response["result"]["structuredContent"]["error"]
            assert (error["code"], error["message"]) == (
                "conversation_not_found",
                f"no conversation '{source}' in the sessions directory",
            )
            assert target.client(source) is started[source]  # the early process, not a new one
            pids.append(target.client(source).channel.io.process.popen.pid)
    finally:
        target.close()
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
    assert os.listdir(tmp_path) == []


def test_only_the_scenarios_left_after_k_have_their_processes_started(monkeypatch, tmp_path):
    """``-k`` deselects inside pytest's own hook: the prediction must see its result, not the whole suite."""
    prepared: list[list[str | None]] = []
    monkeypatch.setattr(StdioTarget, "prepare", lambda self, sources: prepared.append(list(sources)))
    report = tmp_path / "report.json"
    code = main(["run", "-k", "conversationId_reads_the_source", "--fuzz-time", "1", "--json", str(report)])
    ran = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    assert code == 0
    assert [s["name"] for s in ran] == ["No conversationId reads the source conversation"]
    assert len(prepared) == 1
    assert len(prepared[0]) == 1  # that scenario's own binding, not the ten of the whole suite
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", str(prepared[0][0]))


def test_the_agents_of_the_concurrency_feature_are_upcoming_sources():
    [feature] = get_features([str(FEATURES / "concurrency.feature")])
    scenarios = [[step.name for step in template.render({}).steps] for template in feature.scenarios.values()]
    agents = [conversation_id("run-001", alias) for alias in ("north", "south", "east", "west")]
    assert upcoming_sources(scenarios, "run") == [None, *agents, None, None]
    assert agent_sources(["I list the tools"], "run-001") == []


def test_a_lane_of_a_binding_is_a_process_of_its_own(tmp_path):
    target = StdioTarget(reference_command(), tmp_path)
    try:
        target.prepare([None], lane=1)
        assert sorted(target._pool._prepared, key=str) == [(None, 1)]
        first, second = target.client(None), target.client(None, 1)
        assert first is not second and target.client(None, 1) is second
        pids = {client.channel.io.process.popen.pid for client in (first, second)}
        assert len(pids) == 2
    finally:
        target.close()
    assert os.listdir(tmp_path) == []
