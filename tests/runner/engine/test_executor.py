"""The scenario executor on a tiny registry and an inline feature (no pytest in what it runs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from runner.engine.parsed import parse_feature

from ccweb_conformance.engine.executor import Observer, UndefinedStep, run_scenario
from ccweb_conformance.engine.registry import Registry, parse, regex
from ccweb_conformance.engine.scenarios import Step

FEATURE = '''\
@feature-tag
Feature: A tiny feature
  Background:
    Given a world

  @outline-tag
  Scenario Outline: Adding <n>
    When I add <n> and the rows:
      | value |
      | <n>   |
      | 2     |
    Then the total is:
      """
      <total>
      """
    And the word is "<word>"

    Examples:
      | n | total | word |
      | 1 | 4     | one  |
      | 5 | 12    | five |

  Scenario: A failure stops the scenario
    Given a world
    When I add 3 and fail
    Then the total is "3"

  Scenario: A skip
    When I skip
    Then the total is "0"

  Scenario: An undefined step
    When nobody defined this
    Then the total is "0"

  Scenario: A value handed on
    Given a counter named "c"
    Then the counter reads 0
'''


class Skip(Exception):
    """Stands for pytest's skip: an exception the caller says means skipped."""


@dataclass
class World:
    total: int = 0
    seen: list[str] = field(default_factory=list)


def tiny_registry() -> Registry:
    steps = Registry()

    @steps.step("given", "a world")
    def a_world(world: World) -> None:
        world.seen.append("world")

    @steps.step("when", parse("I add {n:d} and the rows:"))
    def add_rows(world: World, n: int, datatable: list[list[str]]) -> None:
        world.total += n + sum(int(row[0]) for row in datatable[1:])

    @steps.step("when", parse("I add {n:d} and fail"))
    def add_and_fail(world: World, n: int) -> None:
        world.total += n
        raise AssertionError("failed on purpose")

    @steps.step("when", "I skip")
    def skip(world: World) -> None:
        raise Skip("not here")

    @steps.step("then", "the total is:")
    def total_is_docstring(world: World, docstring: str) -> None:
        assert world.total == int(docstring)

    @steps.step("then", parse('the total is "{total:d}"'))
    def total_is(world: World, total: int) -> None:
        assert world.total == total

    @steps.step("then", regex(r'the word is "(?P<word>\w+)"'))
    def word_is(world: World, word: str, ccweb_expected_words: list[str]) -> None:
        world.seen.append(word)
        assert word in ccweb_expected_words

    @steps.step("given", parse('a counter named "{name}"'), target_fixture="counter")
    def counter(name: str) -> dict[str, int]:
        return {name: 0}

    @steps.step("then", "the counter reads 0")
    def counter_reads(counter: dict[str, int]) -> None:
        assert counter == {"c": 0}

    return steps


@dataclass
class Recorder(Observer):
    events: list[tuple[str, str]] = field(default_factory=list)

    def before_step(self, step: Step) -> None:
        self.events.append(("before", step.text))

    def after_step(self, step: Step) -> None:
        self.events.append(("after", step.text))

    def step_error(self, step: Step, error: BaseException) -> None:
        self.events.append(("error", f"{step.text}: {type(error).__name__}"))


SCENARIOS = {s.name: s for s in parse_feature(FEATURE, "tiny.feature")}


def provide(name: str) -> Any:
    if name == "ccweb_expected_words":
        return ["one", "five"]
    raise LookupError(name)


def run(name: str, observer: Observer | None = None) -> tuple[World, Any]:
    world = World()
    outcome = run_scenario(SCENARIOS[name], tiny_registry(), world, observer=observer, provide=provide, skip=(Skip,))
    return world, outcome


def test_the_feature_is_read_as_pickles_outlines_expanded():
    assert list(SCENARIOS) == [
        "Adding 1", "Adding 5", "A failure stops the scenario", "A skip", "An undefined step", "A value handed on"
    ]
    assert [s.line for s in SCENARIOS.values()] == [20, 21, 23, 28, 32, 36]  # an outline's row: the row's line
    adding = SCENARIOS["Adding 5"]
    assert adding.tags == frozenset({"feature-tag", "outline-tag"})
    assert [(s.kind, s.keyword, s.text, s.line) for s in adding.steps] == [
        ("given", "Given", "a world", 4),
        ("when", "When", "I add 5 and the rows:", 8),
        ("then", "Then", "the total is:", 12),
        ("then", "And", 'the word is "five"', 16),
    ]
    assert adding.steps[1].datatable == (("value",), ("5",), ("2",))
    assert adding.steps[2].docstring == "12"


@pytest.mark.parametrize(("name", "total"), [("Adding 1", 4), ("Adding 5", 12)])
def test_a_passing_outline_row(name: str, total: int):
    recorder = Recorder()
    world, outcome = run(name, recorder)
    assert outcome.status == "passed"
    assert [s.status for s in outcome.steps] == ["passed"] * 4
    assert [s.definition.function.__name__ for s in outcome.steps if s.definition] == [
        "a_world", "add_rows", "total_is_docstring", "word_is"
    ]
    assert world.total == total
    assert world.seen == ["world", {"Adding 1": "one", "Adding 5": "five"}[name]]
    assert [kind for kind, _ in recorder.events] == ["before", "after"] * 4


def test_a_failed_step_ends_the_scenario_and_the_rest_is_skipped():
    recorder = Recorder()
    world, outcome = run("A failure stops the scenario", recorder)
    assert outcome.status == "failed"
    assert [s.status for s in outcome.steps] == ["passed", "passed", "failed", "skipped"]
    failed = outcome.steps[2]
    assert isinstance(failed.error, AssertionError)
    assert str(failed.error) == "failed on purpose"
    assert outcome.steps[3].error is None and outcome.steps[3].duration == 0.0
    assert world.total == 3
    assert recorder.events == [
        ("before", "a world"), ("after", "a world"),
        ("before", "a world"), ("after", "a world"),
        ("before", "I add 3 and fail"), ("error", "I add 3 and fail: AssertionError"),
    ]


def test_a_step_that_skips_itself_skips_the_scenario():
    _, outcome = run("A skip")
    assert outcome.status == "skipped"
    assert [s.status for s in outcome.steps] == ["passed", "skipped", "skipped"]
    assert isinstance(outcome.steps[1].error, Skip)


def test_an_undefined_step_fails_naming_its_text_and_line():
    _, outcome = run("An undefined step")
    assert [s.status for s in outcome.steps] == ["passed", "failed", "skipped"]
    error = outcome.steps[1].error
    assert isinstance(error, UndefinedStep)
    assert str(error) == "no step definition matches When 'nobody defined this' (line 33)"


def test_a_target_fixture_hands_its_value_to_a_later_step():
    _, outcome = run("A value handed on")
    assert [s.status for s in outcome.steps] == ["passed", "passed", "passed"]


def test_a_parameter_nobody_provides_fails_the_step_not_the_run():
    world = World()
    outcome = run_scenario(SCENARIOS["Adding 1"], tiny_registry(), world)
    assert [s.status for s in outcome.steps] == ["passed", "passed", "passed", "failed"]
    assert str(outcome.steps[3].error) == "a step asks for 'ccweb_expected_words', which this run does not provide"


def test_when_two_definitions_match_the_last_registered_runs():
    steps = tiny_registry()

    @steps.step("given", parse("a {thing}"))
    def any_thing(world: World, thing: str) -> None:
        world.seen.append(f"any {thing}")

    world = World()
    run_scenario(SCENARIOS["A skip"], steps, world, skip=(Skip,))
    assert world.seen == ["any world"]


def test_an_interrupt_is_not_a_step_failure():
    steps = Registry()

    @steps.step("given", "a world")
    def interrupted(world: World) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_scenario(SCENARIOS["A skip"], steps, World())


def test_a_steps_parameters_are_read_once_when_registered_not_at_each_call(monkeypatch: pytest.MonkeyPatch):
    steps = tiny_registry()
    assert [entry.parameters for entry in steps.entries] == [
        ("world",), ("world", "n", "datatable"), ("world", "n"), ("world",), ("world", "docstring"),
        ("world", "total"), ("world", "word", "ccweb_expected_words"), ("name",), ("counter",),
    ]
    read = []
    monkeypatch.setattr("inspect.signature", lambda function, **_: read.append(function) or pytest.fail("read"))
    world = World()
    outcome = run_scenario(SCENARIOS["Adding 5"], steps, world, provide=provide, skip=(Skip,))
    assert (outcome.status, world.total, read) == ("passed", 12, [])
