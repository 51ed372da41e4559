"""``--tags`` as written (``uni-1, @ac-7``), checked against the tags the suite knows, for ``run`` and ``list``."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.suite.selection import MAX_EXPRESSION_CHARS

__all__ = ["canonical_tags", "known_tags"]


def known_tags(scenarios: Iterable[ScenarioRef]) -> list[str]:
    """Every tag a selection may name: requirement and group IDs, and the features' own tags."""
    names = [r.id for r in ccweb_spec.requirements()] + [g.id for g in ccweb_spec.groups()]
    names += sorted({t.lstrip("@") for s in scenarios for t in s.tags})
    return list(dict.fromkeys(names))


def canonical_tags(text: str, scenarios: Iterable[ScenarioRef]) -> str:
    """``uni-1, ac-7`` -> ``UNI-1,AC-7``; an unknown tag is a usage error naming the closest known ones."""
    if len(text) > MAX_EXPRESSION_CHARS:
        raise UsageError(f"--tags: longer than {MAX_EXPRESSION_CHARS:,} characters")
    known = known_tags(scenarios)
    by_folded = {t.casefold(): t for t in known}
    chosen: list[str] = []
    for raw in text.split(","):
        word = raw.strip().lstrip("@")
        if not word:
            continue
        tag = by_folded.get(word.casefold())
        if tag is None:
            close = difflib.get_close_matches(word.upper(), [t.upper() for t in known], n=3, cutoff=0.7)
            spelled = [by_folded[c.casefold()] for c in close]
            hint = f"; did you mean {', '.join(spelled)}?" if spelled else "; run 'ccweb-conformance list' to see them"
            raise UsageError(f"--tags: unknown tag {word!r}{hint}")
        chosen.append(tag)
    if not chosen:
        raise UsageError(f"--tags {text!r} names no tag")
    return ",".join(dict.fromkeys(chosen))
