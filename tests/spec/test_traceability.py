"""Traceability both ways, and a lint of the feature files against the step definitions."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest
from pytest_bdd.feature import get_features
from pytest_bdd.parser import ScenarioTemplate, Step

import ccweb_spec
from ccweb_conformance.engine.registry import STEPS, StepDef
from ccweb_conformance.suite import steps

FEATURES_DIR = Path(str(files("ccweb_features")))
FEATURE_FILES = sorted(FEATURES_DIR.glob("*.feature"))
REQUIREMENTS = {r.id: r for r in ccweb_spec.requirements()}
GROUPS = {g.id for g in ccweb_spec.groups()}
SCENARIO_LINE = re.compile(r"^\s*Scenario(?: Outline)?:\s*(.+?)\s*$", re.MULTILINE)


def all_scenarios() -> list[ScenarioTemplate]:
    return [s for feature in get_features([str(FEATURES_DIR)]) for s in feature.scenarios.values()]


def scenario_tags(scenario: ScenarioTemplate) -> set[str]:
    return set(scenario.tags) | set(scenario.feature.tags)


def step_definitions() -> list[StepDef]:
    """Every step of the registry, once every step module is imported."""
    steps.load()
    return list(STEPS.entries)


def matching(definitions: list[StepDef], step: Step) -> list[StepDef]:
    return [d for d in definitions if d.kind == step.type and d.pattern.arguments(step.name) is not None]


def rendered_steps(scenario: ScenarioTemplate) -> list[Step]:
    contexts = [c for examples in scenario.examples for c in examples.as_contexts()] or [{}]
    return [step for context in contexts for step in scenario.render(context).steps]


def test_there_is_one_feature_per_acceptance_criterion_and_per_area():
    names = [p.name for p in FEATURE_FILES]
    criteria = [g for g in GROUPS if g.startswith("AC-")]
    assert len(criteria) == 10
    for criterion in criteria:
        number = int(criterion.removeprefix("AC-"))
        assert sum(1 for n in names if n.startswith(f"ac{number:02d}_")) == 1, criterion
    assert {"arguments.feature", "errors.feature", "placement.feature", "protocol.feature", "store.feature"} <= set(
        names
    )


def test_every_requirement_is_proved_by_a_scenario():
    proved = {tag for scenario in all_scenarios() for tag in scenario_tags(scenario)}
    assert sorted(set(REQUIREMENTS) - proved) == []


def test_every_tag_names_an_existing_requirement_or_group():
    allowed = set(REQUIREMENTS) | GROUPS | {"should"}
    unknown = {(s.name, t) for s in all_scenarios() for t in scenario_tags(s) if t not in allowed}
    assert unknown == set()


def test_every_scenario_names_at_least_one_requirement():
    untagged = [s.name for s in all_scenarios() if not scenario_tags(s) & set(REQUIREMENTS)]
    assert untagged == []


def test_should_tag_marks_exactly_the_should_only_scenarios():
    for scenario in all_scenarios():
        levels = {REQUIREMENTS[t].level for t in scenario_tags(scenario) if t in REQUIREMENTS}
        assert ("should" in scenario.tags) == (levels == {"SHOULD"}), scenario.name


def test_feature_tags_match_the_group_of_their_requirements():
    for scenario in all_scenarios():
        groups = {t for t in scenario.feature.tags if t in GROUPS}
        assert len(groups) == 1, scenario.feature.name


def test_scenario_names_are_unique_across_all_features():
    names = [name for path in FEATURE_FILES for name in SCENARIO_LINE.findall(path.read_text(encoding="utf-8"))]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert duplicates == []
    assert len(names) == len(all_scenarios())


def test_every_feature_opens_with_a_paragraph_of_intent():
    for feature in get_features([str(FEATURES_DIR)]):
        assert len(feature.description.split()) >= 20, feature.name


@pytest.mark.parametrize("path", FEATURE_FILES, ids=lambda p: p.name)
def test_every_step_matches_exactly_one_step_definition(path: Path):
    definitions = step_definitions()
    problems = []
    for scenario in (s for s in all_scenarios() if Path(s.feature.filename) == path):
        for step in rendered_steps(scenario):
            matches = matching(definitions, step)
            if len(matches) != 1:
                problems.append(f"line {step.line_number}: {step.type} {step.name!r} matches {len(matches)}")
    assert problems == []


def test_every_step_definition_is_used():
    used = set()
    definitions = step_definitions()
    for scenario in all_scenarios():
        for step in rendered_steps(scenario):
            used.update(id(d) for d in matching(definitions, step))
    unused = [d.function.__name__ for d in definitions if id(d) not in used]
    assert unused == []
