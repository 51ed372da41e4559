"""One adapter for pytest-bdd's internals: it reads the features as pytest-bdd does, and no other module reaches in."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

from pytest_bdd.feature import get_features

from ccweb_conformance.engine.features import FeatureScenario, parse_features

FEATURES = Path(str(files("ccweb_features")))
PACKAGE = Path(str(files("ccweb_conformance")))
PUBLIC = {"pytest_bdd"}
"""``from pytest_bdd import given, when, then, parsers, scenarios``: the public API, usable anywhere in suite/."""


def test_the_features_read_without_pytest_are_the_ones_pytest_bdd_collects():
    features = sorted(get_features([str(FEATURES)]), key=lambda f: Path(f.filename).name)
    theirs = [
        FeatureScenario(
            Path(f.filename).name,
            s.name,
            frozenset(s.tags) | frozenset(f.tags),
            sum(1 for e in s.examples for _ in e.as_contexts()),
        )
        for f in features
        for s in f.scenarios.values()
    ]
    assert parse_features(FEATURES) == theirs
    assert len(theirs) >= 90


def test_a_rule_and_a_repeated_name_are_read_as_pytest_bdd_reads_them(tmp_path: Path):
    (tmp_path / "a.feature").write_text(
        "@f\nFeature: F\n  @r\n  Rule: R\n    @s\n    Scenario Outline: S\n      Given x <n>\n"
        "      Examples:\n        | n |\n        | 1 |\n        | 2 |\n"
        "  Scenario: S\n    Given y\n",  # Gherkin: still inside the rule, and it replaces the outline
        encoding="utf-8",
    )
    assert parse_features(tmp_path) == [FeatureScenario("a.feature", "S", frozenset({"f"}), 0)]
    features = get_features([str(tmp_path)])
    [scenario] = features[0].scenarios.values()
    assert (scenario.name, set(scenario.tags), len(scenario.steps)) == ("S", set(), 1)


def test_listing_imports_neither_pytest_nor_pytest_bdd():
    code = (
        "import sys, io, contextlib\n"
        "from ccweb_conformance.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()): main(['list'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pytest', '_pytest', 'pytest_bdd'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == "[]\n"


def test_only_the_adapter_reaches_into_pytest_bdd():
    reaching = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pytest_bdd"):
                if node.module not in PUBLIC:
                    reaching.append(f"{path.relative_to(PACKAGE)}: {node.module}")
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name.startswith("pytest_bdd.")]
                reaching += [f"{path.relative_to(PACKAGE)}: {name}" for name in names]
    assert reaching == []


def test_the_collectors_reading_of_each_scenario_is_pytest_bdds():
    """Feature name, line, steps (background first) and example rows: what the collector and lookahead read."""
    features = sorted(get_features([str(FEATURES)]), key=lambda f: Path(f.filename).name)
    theirs = [
        (
            f.name,
            s.line_number,
            [dict(c) for c in rows],
            [[step.name for step in s.render(dict(c)).steps] for c in rows or [{}]],  # every step, background first
        )
        for f in features
        for s in f.scenarios.values()
        for rows in [[c for e in s.examples for c in e.as_contexts()]]
    ]
    ours = [
        (s.feature.name, s.line_number, list(s.rows), [[step.text for step in pickle.steps] for pickle in s.runnable])
        for s in parse_features(FEATURES)
    ]
    assert ours == theirs
