"""The default phase is bounded by its cases: at 70 ms a call it runs them all and catches what it aims at.

Time is only a safety bound; a phase that reaches it fails as incomplete and says how much ran.
Its cases' conversation IDs are made as a scenario's are, with no mark of the phase.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mutants.fuzz import limit_49_as_48, utf16_past_64_chars
from mutants.patching import _ORIGINAL_LIST

from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.fuzz import phase
from ccweb_conformance.fuzz.phase import run_fuzz
from ccweb_conformance.fuzz.report import fuzz_console_lines, fuzz_scenario
from ccweb_conformance.fuzz.settings import FuzzSettings, settings_for
from ccweb_conformance.fuzz.sweep import sweep_cases
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.versions import CLIENT_INFO
from ccweb_conformance.values import FuzzRequest, Selection, target_of
from ccweb_reference import tool

pytestmark = pytest.mark.slow

CALL_S = 0.07
"""How long the slow server takes per call."""
IN_PROCESS = target_of(RunnerOptions(in_process=True))
DEFAULT = settings_for(FuzzRequest(), Selection())
assert DEFAULT is not None
SWEEP = len(sweep_cases())


def slow(function: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """``function`` behind a 70 ms wait, as a server that takes 70 ms a call."""

    def call(*args: Any) -> dict[str, Any]:
        time.sleep(CALL_S)
        return function(*args)

    return call


def test_the_default_phase_is_60_cases_and_the_sweep_bounded_by_count_not_time():
    assert (DEFAULT.count, DEFAULT.seed, DEFAULT.time_limit, DEFAULT.sweep_total, SWEEP) == (60, 0, None, 63, 63)
    assert DEFAULT.bound == 30.0 + 0.25 * (60 + 63)  # 60.75 s: 7 times what 70 ms a call needs


def test_a_conforming_server_at_70_ms_a_call_runs_every_case_and_passes(monkeypatch):
    monkeypatch.setattr(tool, "list_user_inputs", slow(_ORIGINAL_LIST))
    run = run_fuzz(IN_PROCESS, DEFAULT, RunContext())
    assert (run.passed, run.cases_run, run.sweep_calls, run.timed_out, run.error) == (True, 60, 63, False, None)
    assert run.duration_s >= (60 + 63) * CALL_S
    assert (
        fuzz_scenario(run).scenario == "generated conversations, seed 0 [60 of 60 cases, argument sweep 63 of 63 calls]"
    )
    assert fuzz_console_lines(run, verbose=False)[1].startswith("fuzz: 60 of 60 cases in ")


@pytest.mark.parametrize(
    ("mutant", "difference", "requirements"),
    [
        pytest.param(limit_49_as_48, "$.requestedLimit: expected 49, got 48", "ARG-1", id="limit-49"),
        pytest.param(utf16_past_64_chars, None, None, id="utf16-past-64"),
    ],
)
def test_the_default_phase_catches_a_one_value_bug_and_a_utf16_bug_at_70_ms_a_call(
    monkeypatch, mutant, difference, requirements
):
    monkeypatch.setattr(tool, "list_user_inputs", slow(mutant))
    run = run_fuzz(IN_PROCESS, DEFAULT, RunContext())
    assert (run.passed, run.error, run.timed_out, run.mismatch is not None) == (False, None, False, True)
    scenario = fuzz_scenario(run)
    assert scenario.status == "failed"
    assert scenario.scenario.startswith("generated conversations, seed 0 [")
    if difference is not None:
        assert run.mismatch.differences[0] == difference
        assert (run.sweep_calls, run.cases_run) == (49, 0)  # the sweep's limit 49, before any generated case
        assert requirements in scenario.requirements
    else:
        assert run.sweep_calls == SWEEP
        assert 1 <= run.cases_run <= DEFAULT.count
        assert re.match(
            r"\$\.(totalChars|items\[\d+\]\.(contentChars|originalChars|content|truncated)|hasMore)",
            run.mismatch.differences[0],
        )


def test_a_phase_stopped_by_its_safety_bound_fails_as_incomplete_and_says_how_much_ran(monkeypatch):
    monkeypatch.setattr(tool, "list_user_inputs", slow(_ORIGINAL_LIST))
    run = run_fuzz(IN_PROCESS, FuzzSettings(60, 0, time_limit=1.0), RunContext())
    ran = run.sweep_calls
    assert (run.passed, run.incomplete, run.timed_out, run.cases_run, 1 <= ran < SWEEP) == (False, True, True, 0, True)
    scenario = fuzz_scenario(run)
    assert (scenario.status, scenario.scenario) == (
        "failed",
        f"generated conversations, seed 0 [0 of 60 cases, argument sweep {ran} of 63 calls]",
    )
    message = scenario.message or ""
    assert message.startswith(
        f"differential fuzzing is incomplete: 0 of 60 generated cases and {ran} of 63 argument-sweep calls ran in "
    )
    assert message.endswith("\nreplay: ccweb-conformance run --in-process --fuzz 60 --seed 0 --fuzz-time 1")
    line = fuzz_console_lines(run, verbose=False)[1]
    assert line.startswith("fuzz: 0 of 60 cases in ")
    assert line.endswith(
        f", after an argument sweep of {ran} of 63 calls, stopped at the 1s safety bound: FAILED (incomplete)"
    )


def test_cases_are_named_as_scenarios_are_with_no_mark_of_the_phase(monkeypatch, tmp_path: Path):
    seen: list[str] = []
    original = phase.run_case

    def spy(case: Any, target: Any, files: ConversationFiles, conversation_id: str) -> Any:
        seen.append(conversation_id)
        return original(case, target, files, conversation_id)

    monkeypatch.setattr(phase, "run_case", spy)
    run = run_fuzz(IN_PROCESS, FuzzSettings(20, 3), RunContext())
    scenario_id = Workspace(None, root=tmp_path).scenario(7).new_id("alpha")

    def shape(conversation_id: str) -> str:
        return re.sub(r"[0-9a-f]", "x", conversation_id)

    assert (run.passed, len(seen), len(set(seen))) == (True, 20 + SWEEP, 20 + SWEEP)
    assert {shape(i) for i in seen} == {shape(scenario_id)}
    assert not [i for i in seen if "fuzz" in i.lower()]


def test_the_phase_asks_as_the_client_cc_web_runs_and_the_runner_still_names_itself(monkeypatch):
    names: list[str] = []
    original = phase.run_case

    def spy(case: Any, target: Any, files: ConversationFiles, conversation_id: str) -> Any:
        names.append(target.client(None).client_info["name"])
        return original(case, target, files, conversation_id)

    monkeypatch.setattr(phase, "run_case", spy)
    run = run_fuzz(IN_PROCESS, FuzzSettings(5, 1, sweep=False), RunContext())
    assert (run.passed, run.cases_run, set(names), CLIENT_INFO["name"]) == (
        True,
        5,
        {"claude-code"},
        "ccweb-conformance",
    )
