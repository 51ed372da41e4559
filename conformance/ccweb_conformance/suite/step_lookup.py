"""A memo for pytest-bdd's step lookup, limited to this suite's own scenarios.

pytest-bdd finds a step's definition by asking pytest, for every fixture name of the session
(about 90 here), which definitions are visible to the scenario, and pytest answers each
question by walking the scenario's parents: about 1.7 ms a step, a quarter of a whole
in-process run. In this suite every step definition is defined once, at import, in the
module ``test_conformance`` (never per scenario), so which step definitions a scenario can
see depends only on its module: they are looked up once per module node and kept; matching
a step's text against them is done as pytest-bdd does it, in its order, once per distinct
(type, text) of a module. Scenarios of any
other module (a project's own features, should the plugin be loaded beside them) go through
pytest-bdd's own lookup untouched.
"""

from __future__ import annotations

import importlib
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from ccweb_conformance.suite.bdd import STEP_LOOKUP, step_lookup_internals

_SUITE_MODULE = "ccweb_conformance.suite.test_conformance"

Lookup = Callable[..., Iterable[Any]]


def _visible_step_definitions(fixturemanager: Any, node: Any) -> list[tuple[Any, Any]]:
    """(fixture definition, step context) of every step definition ``node`` can see, in pytest-bdd's order."""
    internals = step_lookup_internals()
    assert internals is not None  # install() puts the memo in place only when they exist
    get_fixture_names, getfixturedefs, step_function_context_registry = internals
    found = []
    for name in get_fixture_names(fixturemanager=fixturemanager):
        for fixturedef in getfixturedefs(fixturemanager, name, node) or []:
            context = step_function_context_registry.get(fixturedef.func)
            if context is not None:
                found.append((fixturedef, context))
    return found


def memoised(original: Lookup) -> Lookup:
    """``find_fixturedefs_for_step`` with the visible step definitions kept per module of this suite."""
    per_module: weakref.WeakKeyDictionary[Any, list[tuple[Any, Any]]] = weakref.WeakKeyDictionary()
    matched: weakref.WeakKeyDictionary[Any, dict[tuple[Any, str], list[Any]]] = weakref.WeakKeyDictionary()

    def find_fixturedefs_for_step(step: Any, fixturemanager: Any, node: Any) -> Iterable[Any]:
        module = getattr(node, "parent", None)
        if getattr(getattr(module, "module", None), "__name__", None) != _SUITE_MODULE:
            return original(step=step, fixturemanager=fixturemanager, node=node)
        visible = per_module.get(module)
        if visible is None:
            visible = per_module[module] = _visible_step_definitions(fixturemanager, module)
            matched[module] = {}
        # The same step text of the same type matches the same definitions: matched once per module
        # (214 of a run's 986 steps are "I call the tool with arguments:").
        key = (step.type, step.name)
        found = matched[module].get(key)
        if found is None:
            found = matched[module][key] = [
                fixturedef
                for fixturedef, context in visible
                if (context.type is None or context.type == step.type) and context.parser.is_matching(step.name)
            ]
        return list(found)

    find_fixturedefs_for_step.original = original  # type: ignore[attr-defined]
    return find_fixturedefs_for_step


def install() -> None:
    """Put the memo in front of pytest-bdd's lookup (once; a no-op where pytest-bdd has no such function)."""
    # By its module's name: the package pytest_bdd exports a function named ``scenario``.
    if step_lookup_internals() is None:
        return
    module_name, attribute = STEP_LOOKUP
    scenario_module = importlib.import_module(module_name)
    current = getattr(scenario_module, attribute, None)
    if current is None or hasattr(current, "original"):
        return
    setattr(scenario_module, attribute, memoised(current))
