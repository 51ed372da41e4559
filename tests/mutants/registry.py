"""The catalogue: broken implementations (mutants) and allowed variants of the reference.

Each entry patches the reference modules of the *current process* (``apply()``), so that
``ccweb-conformance run --in-process`` (or the reference's stdio server started by
``run.py serve``) runs the changed implementation. Names are patched where they are USED:
``ccweb_reference.tool`` holds ``list_user_inputs``, ``parse_arguments``, ``clean_id`` and
``target_conversation``; ``ccweb_reference.server`` holds ``call_tool``, ``wire`` and ``TOOL``;
``build_server`` is imported by ``ccweb_reference.cli`` and by the runner's in-process
transport, so server-level changes replace it in all three places.

A mutant has exactly one bug, names the requirement(s) it breaks and the scenario expected
to fail (``killed_by``: a scenario name as in the JSON report; without `` [...]`` it matches
every example row of an outline). ``should=True`` marks a SHOULD-level bug: the suite only
warns about it, so it is run with ``--strict``.

A variant is a different but conforming implementation: it must pass. ``warnings`` lists the
SHOULD requirements it deliberately gives up (their scenarios must be warnings, nothing else)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files

Apply = Callable[[], None]


@dataclass(frozen=True)
class Mutant:
    """A deliberately broken implementation: one bug, caught by a named scenario."""

    name: str
    description: str
    requirements: tuple[str, ...]
    killed_by: str
    apply: Apply
    should: bool = False
    http: bool = False
    """The bug shows only over HTTP (one server for every source): run against ``serve --http``, not in process."""
    stdio: bool = False
    """The bug shows only in a server process of its own: run against ``serve`` over stdio, not in process (a
    root runner checks a permission error only against servers it starts without root's power over file modes)."""
    timing: bool = False
    """The killing scenario needs the server to read while the runner holds a save torn. On a starved machine the
    server may get to its read only after the save completed, and then answers correctly: a survival is run again,
    alone, at most ``TIMING_RERUNS`` times, before it counts (a mutant that truly survives survives every run)."""

    @property
    def feature(self) -> str:
        """The feature file whose scenario kills it: the area module it lives in (``ac07_unicode``)."""
        return self.apply.__module__.rsplit(".", 1)[-1]

    @property
    def feature_tag(self) -> str | None:
        """The feature-level tag of that file (``AC-7``): ``--tags`` with it runs the whole feature.

        None for a mutant of ``fuzz.py``: the default run's fuzz phase kills it, not a feature.
        """
        if self.feature == "fuzz":
            return None
        text = files("ccweb_features").joinpath(f"{self.feature}.feature").read_text(encoding="utf-8")
        match = re.search(r"^@(\S+)\s*\nFeature:", text, flags=re.MULTILINE)
        if match is None:
            raise LookupError(f"{self.feature}.feature has no feature-level tag")
        return match.group(1)

    @property
    def selection(self) -> list[str]:
        """The ``run`` arguments of the batch: the scenario that must kill it, no more.

        The named scenario (every row of an outline) pasted into ``-k`` as ``--co`` prints it
        (``ac07_unicode.feature::Name``), no fuzz phase; for a fuzz-phase mutant, the one
        tool-listing scenario and then the short phase every full run ends with (the argument
        sweep and 60 generated conversations, seed 0: the scenario that kills it).
        """
        if self.feature_tag is None:
            return ["--tags", FUZZ_RUN_TAGS, "--fuzz", str(SHORT_FUZZ_PHASE)]
        killing = re.sub(r" \[.*\]$", "", self.killed_by, flags=re.DOTALL)
        return ["-k", f"{self.feature}.feature::{killing}", "--fuzz", "0"]


TIMING_RERUNS = 2
"""How many times a timing-dependent mutant that survived is run again, alone (``Mutant.timing``)."""
FUZZ_RUN_TAGS = "TOOL-1"
"""A fuzz-phase mutant's scenarios before the phase (a selection runs the phase only when --fuzz is given)."""
SHORT_FUZZ_PHASE = 60
"""The generated conversations of the phase a full run ends with (``--fuzz``'s default, as the README says)."""


@dataclass(frozen=True)
class Variant:
    """An allowed difference: the suite must pass it (SHOULD warnings listed in ``warnings``)."""

    name: str
    description: str
    apply: Apply
    warnings: tuple[str, ...] = ()


MUTANTS: dict[str, Mutant] = {}


VARIANTS: dict[str, Variant] = {}


def mutant(
    name: str,
    requirements: str,
    killed_by: str,
    description: str,
    *,
    should: bool = False,
    http: bool = False,
    stdio: bool = False,
    timing: bool = False,
) -> Callable[[Apply], Apply]:
    """Register the decorated patch function as a mutant."""

    def register(apply: Apply) -> Apply:
        MUTANTS[name] = Mutant(
            name, description, tuple(requirements.split()), killed_by, apply, should, http, stdio, timing
        )
        return apply

    return register


def variant(name: str, description: str, *, warnings: str = "") -> Callable[[Apply], Apply]:
    """Register the decorated patch function as a variant."""

    def register(apply: Apply) -> Apply:
        VARIANTS[name] = Variant(name, description, apply, tuple(warnings.split()))
        return apply

    return register


def scenario_matches(killed_by: str, scenario_name: str) -> bool:
    """True if a report scenario name is the one ``killed_by`` names (any row of an outline)."""
    return scenario_name == killed_by or re.sub(r" \[.*\]$", "", scenario_name, flags=re.DOTALL) == killed_by
