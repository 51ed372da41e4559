"""The step registry bound into pytest: each entry registered with pytest-bdd's public decorators.

pytest-bdd keeps a step definition as a fixture of the module that registers it; :func:`bind_steps`
is called at the top level of that module (``test_conformance.py``), and each fixture lands there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from pytest_bdd import given, parsers, then, when

from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import Exact, Parse, Pattern, Registry

__all__ = ["bind_steps"]

_DECORATORS = {"given": given, "when": when, "then": then}
_CALLER = 2
"""pytest-bdd's ``stacklevel`` that reaches the module calling :func:`bind_steps` (the decorator, then here)."""


def _pytest_bdd_name(pattern: Pattern) -> str | parsers.StepParser:
    if isinstance(pattern, Exact):
        return pattern.text
    return parsers.parse(pattern.text) if isinstance(pattern, Parse) else parsers.re(pattern.text)


def _skipping(function: Callable[..., Any]) -> Callable[..., Any]:
    """The step function, its :class:`StepSkipped` turned into pytest's skip (same message); its signature kept."""

    @functools.wraps(function)
    def step(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except StepSkipped as skipped:
            pytest.skip(str(skipped))

    return step


def bind_steps(registry: Registry) -> None:
    """Register every entry of ``registry`` with pytest-bdd, in the calling module's namespace."""
    for entry in registry.entries:
        decorator = _DECORATORS[entry.kind]
        decorator(_pytest_bdd_name(entry.pattern), target_fixture=entry.target_fixture, stacklevel=_CALLER)(
            _skipping(entry.function)
        )
