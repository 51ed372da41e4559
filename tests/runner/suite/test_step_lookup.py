"""The memo in front of pytest-bdd's step lookup finds exactly what pytest-bdd finds."""

from __future__ import annotations

import importlib
import json
from types import SimpleNamespace
from typing import Any

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.suite import step_lookup

SCENARIO_MODULE = importlib.import_module("pytest_bdd.scenario")


def test_every_step_of_a_whole_run_gets_the_definitions_pytest_bdd_would_give(monkeypatch, tmp_path):
    step_lookup.install()
    memo = SCENARIO_MODULE.find_fixturedefs_for_step
    original = memo.original
    compared: list[tuple[str, list[Any], list[Any]]] = []

    def both(step: Any, fixturemanager: Any, node: Any) -> list[Any]:
        mine = list(memo(step=step, fixturemanager=fixturemanager, node=node))
        theirs = list(original(step=step, fixturemanager=fixturemanager, node=node))
        compared.append((f"{step.type} {step.name}", mine, theirs))
        return mine

    both.original = original  # type: ignore[attr-defined]  # install() leaves a memo in place
    monkeypatch.setattr(SCENARIO_MODULE, "find_fixturedefs_for_step", both)
    report = tmp_path / "report.json"
    assert main(["run", "--in-process", "--fuzz", "0", "--json", str(report)]) == 0
    steps = sum(len(s["steps"]) for s in json.loads(report.read_text(encoding="utf-8"))["scenarios"])
    assert len(compared) == steps > 800
    assert [name for name, mine, theirs in compared if mine != theirs] == []
    assert [name for name, mine, _ in compared if len(mine) != 1] == []


def test_other_modules_go_through_pytest_bdd_unchanged():
    calls = []

    def original(step: Any, fixturemanager: Any, node: Any) -> list[str]:
        calls.append(node)
        return ["theirs"]

    memo = step_lookup.memoised(original)
    node = SimpleNamespace(parent=SimpleNamespace(module=SimpleNamespace(__name__="tests.test_project_features")))
    assert memo(step=None, fixturemanager=None, node=node) == ["theirs"]
    assert calls == [node]


def test_a_step_text_is_matched_once_per_module_and_type(monkeypatch):
    asked: list[str] = []

    class Parser:
        def __init__(self, text: str) -> None:
            self.text = text

        def is_matching(self, name: str) -> bool:
            asked.append(name)
            return name == self.text

    definitions = [
        ("call", SimpleNamespace(type="when", parser=Parser("I call"))),
        ("any", SimpleNamespace(type=None, parser=Parser("I call"))),
        ("list", SimpleNamespace(type="when", parser=Parser("I list"))),
    ]
    monkeypatch.setattr(step_lookup, "_visible_step_definitions", lambda _manager, _module: definitions)
    memo = step_lookup.memoised(lambda **_: pytest.fail("the suite's module never reaches pytest-bdd's lookup"))

    class Module:  # a module node (weakly referenced by the memo)
        module = SimpleNamespace(__name__="ccweb_conformance.suite.test_conformance")

    node = SimpleNamespace(parent=Module())
    when_call, then_call = SimpleNamespace(type="when", name="I call"), SimpleNamespace(type="then", name="I call")
    assert memo(step=when_call, fixturemanager=None, node=node) == ["call", "any"]
    assert asked == ["I call", "I call", "I call"]
    found = memo(step=when_call, fixturemanager=None, node=node)
    found.append("changed by a caller")
    assert memo(step=when_call, fixturemanager=None, node=node) == ["call", "any"]
    assert memo(step=then_call, fixturemanager=None, node=node) == ["any"]
    assert asked == ["I call", "I call", "I call", "I call"]


def test_installing_twice_keeps_one_memo(monkeypatch):
    monkeypatch.setattr(SCENARIO_MODULE, "find_fixturedefs_for_step", SCENARIO_MODULE.find_fixturedefs_for_step)
    step_lookup.install()
    first = SCENARIO_MODULE.find_fixturedefs_for_step
    step_lookup.install()
    assert SCENARIO_MODULE.find_fixturedefs_for_step is first
    assert hasattr(first, "original")


@pytest.fixture(autouse=True)
def _restore_lookup(monkeypatch):
    monkeypatch.setattr(SCENARIO_MODULE, "find_fixturedefs_for_step", SCENARIO_MODULE.find_fixturedefs_for_step)
