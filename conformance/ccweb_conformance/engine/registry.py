"""One registry of step definitions: each step's kind, pattern, function and target fixture.

The step modules register into :data:`STEPS` with :func:`given`, :func:`when` and :func:`then` when
they are imported; nothing else is kept. The runner's executor matches step text against it, and the
pytest adapter (``suite/bdd_steps.py``) registers the same entries with pytest-bdd.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import parse as parse_library

__all__ = ["STEPS", "Exact", "Kind", "Parse", "Pattern", "Regex", "Registry", "StepDef",
           "given", "parse", "regex", "then", "when"]

Kind = Literal["given", "when", "then"]
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Exact:
    """A step text matched as it is written."""

    text: str

    def arguments(self, step: str) -> dict[str, Any] | None:
        """None when ``step`` is not this text, else no arguments."""
        return {} if step == self.text else None


@dataclass(frozen=True)
class Parse:
    """A ``parse`` format (``'a conversation "{alias}" of {size:d} KB'``), as pytest-bdd's ``parsers.parse``."""

    text: str
    compiled: Any = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", parse_library.compile(self.text))

    def arguments(self, step: str) -> dict[str, Any] | None:
        """The named values of ``step``, or None when it does not match."""
        try:
            found = self.compiled.parse(step)
        except ValueError:  # a value its type cannot convert: no match, as pytest-bdd reads it
            return None
        return None if found is None else dict(found.named)


@dataclass(frozen=True)
class Regex:
    """A regular expression matched against the whole step text, as pytest-bdd's ``parsers.re``."""

    text: str
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.text))

    def arguments(self, step: str) -> dict[str, Any] | None:
        """The named groups of ``step``, or None when it does not match."""
        found = self.compiled.fullmatch(step)
        return None if found is None else found.groupdict()


Pattern = Exact | Parse | Regex


parse = Parse  # the step modules' names for the patterns, as pytest-bdd's parsers.parse and parsers.re
regex = Regex


@dataclass(frozen=True)
class StepDef:
    """One step definition: a function bound to a pattern of one kind."""

    kind: Kind
    pattern: Pattern
    function: Callable[..., Any]
    target_fixture: str | None = None
    parameters: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """The names the function takes, read once when it is registered (the executor passes each by name)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(inspect.signature(self.function).parameters))


@dataclass
class Registry:
    """Step definitions in the order they were registered."""

    entries: list[StepDef] = field(default_factory=list)
    _matched: dict[tuple[str, str], list[tuple[StepDef, dict[str, Any]]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """What :meth:`matches` found per kind and text since the last registration: a run's ~1,000 steps are a
    few hundred texts, each matched against every pattern once."""

    def step(self, kind: Kind, pattern: str | Pattern, *, target_fixture: str | None = None) -> Callable[[F], F]:
        """A decorator registering its function under ``pattern`` (a plain string: the exact text)."""
        compiled = Exact(pattern) if isinstance(pattern, str) else pattern

        def register(function: F) -> F:
            self.entries.append(StepDef(kind, compiled, function, target_fixture))
            self._matched.clear()
            return function

        return register

    def matches(self, kind: str, text: str) -> list[tuple[StepDef, dict[str, Any]]]:
        """Every entry of ``kind`` whose pattern matches ``text``, with the arguments it reads, in order."""
        found = self._matched.get((kind, text))
        if found is None:
            read = ((entry, entry.pattern.arguments(text)) for entry in self.entries if entry.kind == kind)
            found = [(entry, arguments) for entry, arguments in read if arguments is not None]
            self._matched[(kind, text)] = found
        return [(entry, dict(arguments)) for entry, arguments in found]


STEPS = Registry()
"""The kit's step definitions, filled when the step modules are imported."""


def given(pattern: str | Pattern, *, target_fixture: str | None = None) -> Callable[[F], F]:
    """Register a Given step in :data:`STEPS`."""
    return STEPS.step("given", pattern, target_fixture=target_fixture)


def when(pattern: str | Pattern, *, target_fixture: str | None = None) -> Callable[[F], F]:
    """Register a When step in :data:`STEPS`."""
    return STEPS.step("when", pattern, target_fixture=target_fixture)


def then(pattern: str | Pattern, *, target_fixture: str | None = None) -> Callable[[F], F]:
    """Register a Then step in :data:`STEPS`."""
    return STEPS.step("then", pattern, target_fixture=target_fixture)
