"""pytest-bdd runs the last registered of several matching step definitions, as the engine does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from runner.engine.parsed import parse_feature

from ccweb_conformance.engine.executor import run_scenario
from ccweb_conformance.engine.registry import Registry, parse

FEATURE = "Feature: Order\n  Scenario: Two definitions match\n    Given a thing\n"
TEST_MODULE = '''\
from pytest_bdd import given, parsers, scenarios

scenarios("order.feature")


@given("a thing")
def first():
    pass


@given(parsers.parse("a {word}"))
def second(word):
    pass
'''
CONFTEST = '''\
def pytest_bdd_after_step(step_func):
    print("CHOSEN", step_func.__name__)
'''


def pytest_bdd_choice(folder: Path) -> str:
    """The function name pytest-bdd ran for the one step, from a pytest run of its own."""
    (folder / "order.feature").write_text(FEATURE, encoding="utf-8")
    (folder / "test_order.py").write_text(TEST_MODULE, encoding="utf-8")
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "--disable-plugin-autoload", "-p", "no:cacheprovider",
         "-p", "pytest_bdd.plugin", "-c", "/dev/null", "--rootdir", str(folder), "test_order.py"],
        cwd=folder, capture_output=True, text=True, timeout=60, check=False,
    )
    chosen = [line.split()[1] for line in ran.stdout.splitlines() if line.startswith("CHOSEN ")]
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return chosen[0] if len(chosen) == 1 else repr(chosen)


def engine_choice() -> str:
    steps, chosen = Registry(), []
    steps.step("given", "a thing")(lambda: chosen.append("first"))
    steps.step("given", parse("a {word}"))(lambda word: chosen.append("second"))
    [scenario] = parse_feature(FEATURE, "order.feature")
    outcome = run_scenario(scenario, steps, world=None)
    assert outcome.status == "passed"
    return chosen[0]


def test_the_engine_and_pytest_bdd_run_the_same_of_two_matching_definitions(tmp_path: Path):
    assert pytest_bdd_choice(tmp_path) == "second"
    assert engine_choice() == "second"
