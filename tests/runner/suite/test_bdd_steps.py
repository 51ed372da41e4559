"""The registry's steps registered with pytest-bdd land in the module that asks for them (each wrapped so that
a step that skips itself is pytest's skip)."""

from __future__ import annotations

from pytest_bdd.steps import step_function_context_registry

from ccweb_conformance.engine.registry import Registry, parse, regex
from ccweb_conformance.suite.bdd_steps import bind_steps


def test_each_step_is_a_pytest_bdd_step_fixture_of_the_calling_module():
    registry = Registry()
    registry.step("given", "a thing")(lambda: None)
    registry.step("when", parse("it is {x:d}"))(lambda x: None)
    registry.step("then", regex(r"all (?P<y>\w+)"))(lambda y: None)
    module: dict[str, object] = {"bind_steps": bind_steps, "registry": registry}
    exec("bind_steps(registry)", module)  # a module's top level, as test_conformance.py calls it
    fixtures = {name: value for name, value in module.items() if name.startswith("pytestbdd_")}
    assert sorted(fixtures) == [
        "pytestbdd_stepdef_given_a thing",
        "pytestbdd_stepdef_then_all (?P<y>\\w+)",
        "pytestbdd_stepdef_when_it is {x:d}",
    ]
    contexts = [c for c in list(step_function_context_registry.values())
                if getattr(c.step_func, "__wrapped__", None) in {e.function for e in registry.entries}]
    assert sorted((c.type, type(c.parser).__name__, c.parser.name) for c in contexts) == [
        ("given", "string", "a thing"),
        ("then", "re", r"all (?P<y>\w+)"),
        ("when", "parse", "it is {x:d}"),
    ]
