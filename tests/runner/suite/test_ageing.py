"""Conversations that really age: written when the run starts, adopted by their scenario, waited for only in part."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from paths import REPO
from pytest_bdd.feature import get_features

from ccweb_conformance.cli import main
from ccweb_conformance.fixtures.conversations import conversation_id, one_message_session, session_bytes
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite import stage
from ccweb_conformance.suite.ageing import adopt_or_write, left_to_wait, write_early
from ccweb_conformance.suite.lookahead import AgedConversation, aged_conversations
from ccweb_conformance.suite.steps import realism_steps
from ccweb_conformance.transport.targets import StdioTarget

FEATURES = REPO / "features" / "ccweb_features"
AGED_SCENARIO = "A conversation unchanged for seconds, then saved in place at the same size and time, is visible"
SECOND = 1_000_000_000


def test_what_is_left_of_the_age_is_measured_from_the_later_of_the_two_times() -> None:
    now = 100 * SECOND
    assert left_to_wait(now, now, 3, now) == 3.0
    assert left_to_wait(now - 5 * SECOND, now - 1_250_000_000, 3, now) == 1.75  # the change time is the later
    assert left_to_wait(now - 1_250_000_000, now - 5 * SECOND, 3, now) == 1.75  # the modification time is
    assert left_to_wait(now - 3 * SECOND, now - 3 * SECOND, 3, now) == 0.0
    assert left_to_wait(now - 7200 * SECOND, now - 4 * SECOND, 3, now) == 0.0
    assert left_to_wait(now + 60 * SECOND, now, 3, now) == 3.0  # a time in the future: never more than the age


def test_the_store_feature_wants_the_conversation_of_its_last_scenario_aged() -> None:
    [feature] = get_features([str(FEATURES / "store.feature")])
    scenarios = [
        ([step.name for step in template.render(row).steps], f"node{n}", template.name)
        for n, (template, row) in enumerate(
            (template, row)
            for template in feature.scenarios.values()
            for row in ([c for e in template.examples for c in e.as_contexts()] or [{}])
        )
    ]
    assert aged_conversations([(steps, nodeid) for steps, nodeid, _ in scenarios]) == [
        AgedConversation(len(scenarios), f"node{len(scenarios) - 1}", "alpha", "aaaa", 3)
    ]
    assert scenarios[-1][2] == AGED_SCENARIO


def test_a_file_written_early_is_adopted_as_it_is_and_a_missing_one_is_written(tmp_path: Path) -> None:
    workspace = Workspace(None, root=tmp_path, prefix="run")
    try:
        early = write_early(workspace, [AgedConversation(2, "node", "alpha", "aaaa", 3)])
        assert list(early) == [2]
        files = early[2].files
        made = conversation_id("run-002", "alpha")
        before = os.stat(files.path_of(made))
        assert adopt_or_write(files, "alpha", "aaaa") == made
        after = os.stat(files.path_of(made))
        assert (after.st_ino, after.st_mtime_ns, after.st_ctime_ns) == (
            before.st_ino,
            before.st_mtime_ns,
            before.st_ctime_ns,
        )
        assert files.read(made) == session_bytes(one_message_session(made, "aaaa"))
        other = workspace.scenario(3)
        written = adopt_or_write(other, "alpha", "aaaa")
        assert written == conversation_id("run-003", "alpha")
        assert other.read(written) == session_bytes(one_message_session(written, "aaaa"))
        assert workspace.leftovers() == sorted([f"{made}.json", f"{written}.json"])
        workspace.sweep()  # the run's sweep removes both, tracked as every conversation file is
        assert workspace.leftovers() == []
    finally:
        workspace.close()


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    code = main(["run", *args, "--json", str(report)])
    return code, json.loads(report.read_text(encoding="utf-8"))


def test_run_alone_the_scenario_waits_only_what_is_left_after_the_run_started(monkeypatch, tmp_path) -> None:
    """The file is written before the target starts: a start that takes a second leaves two to wait, not three."""
    prepare = StdioTarget.prepare

    def slow_prepare(self: StdioTarget, sources: list[str | None]) -> None:
        prepare(self, sources)
        time.sleep(1.0)

    asked: list[float] = []

    def recorded(*given: int) -> float:
        asked.append(left_to_wait(*given))
        return asked[-1]

    monkeypatch.setattr(StdioTarget, "prepare", slow_prepare)
    monkeypatch.setattr(realism_steps, "left_to_wait", recorded)
    code, report = _run(tmp_path, "-k", "unchanged_for_seconds")
    assert code == 0
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [(AGED_SCENARIO, "passed")]
    # what the step asked to wait, not how long it took: at most 3 s less the second the start took (less on a
    # loaded machine, whose start takes longer)
    assert len(asked) == 1 and asked[0] <= 2.0, asked


def test_files_written_for_another_scenario_under_its_number_are_removed_before_it_runs(monkeypatch, tmp_path) -> None:
    """A wrong guess (another scenario runs as number 1) must not leave it a file in the way of its own "alpha"."""

    def wrong_guess(scenarios: Any) -> list[AgedConversation]:
        del scenarios
        return [AgedConversation(1, "not the scenario that runs", "alpha", "aaaa", 3)]

    monkeypatch.setattr(stage, "aged_conversations", wrong_guess)
    code, report = _run(tmp_path, "-k", "A_change_to_the_file_is_visible_in_the_next_call", "--fuzz", "0")
    assert [(s["name"], s["status"]) for s in report["scenarios"]] == [
        ("A change to the file is visible in the next call", "passed")
    ]
    assert (code, report["waits"].get("real age")) == (0, None)
