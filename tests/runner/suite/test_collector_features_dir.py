"""Which collected items are the kit's scenarios: those the kit's binding made, never a project's own."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pytest_bdd import scenario

from ccweb_conformance.suite.bdd import bind_features
from ccweb_conformance.suite.items import is_scenario

FEATURE = "Feature: F\n  Scenario: S\n    Given a step\n"


def test_what_the_kit_bound_is_its_scenario_and_a_project_binding_the_same_file_is_not(tmp_path: Path) -> None:
    (tmp_path / "a.feature").write_text(FEATURE, encoding="utf-8")
    bound: dict[str, Any] = {}
    bind_features(bound, tmp_path)
    own = scenario(str(tmp_path / "a.feature"), "S", features_base_dir=str(tmp_path))(lambda: None)
    assert list(bound) == ["test_s"]
    assert is_scenario(SimpleNamespace(function=bound["test_s"]))  # type: ignore[arg-type]
    assert not is_scenario(SimpleNamespace(function=own))  # type: ignore[arg-type]
    assert not is_scenario(SimpleNamespace())  # type: ignore[arg-type]  (an item that is no function: a doctest)
