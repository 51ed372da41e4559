"""Which scenarios a selection names: tags checked against the known ones, ``-k`` as pytest reads it
(read by the engine's own parser, ``engine/keyword.py``)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence

import ccweb_spec
from ccweb_conformance.engine.keyword import Keyword, KeywordSyntaxError, Matcher, compile_keyword, keyword_matches
from ccweb_conformance.errors import UsageError
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.values import Selection

__all__ = ["MAX_EXPRESSION_CHARS", "MAX_EXPRESSION_DEPTH", "canonical_tags", "check_keyword", "known_tags",
           "options_selection", "pasted_match", "pasted_scenarios", "select", "template_name"]

MAX_EXPRESSION_CHARS = 1000
"""Longest ``-k`` or ``--tags`` text accepted."""
MAX_EXPRESSION_DEPTH = 32
"""Deepest nesting of ``not`` and parentheses in a ``-k`` expression (pytest parses it recursively)."""

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


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


def _depth(expression: str) -> int:
    """How deep pytest's recursive parser would go: open parentheses plus ``not`` words in a row."""
    chains = [0]  # per open parenthesis: the ``not`` words waiting for their operand
    deepest = 0
    for token in _TOKEN.findall(expression):
        if token == "not":
            chains[-1] += 1
        elif token == "(":
            chains.append(0)
        elif token == ")":
            if len(chains) > 1:
                chains.pop()
            chains[-1] = 0
        elif token not in ("and", "or"):
            chains[-1] = 0
        deepest = max(deepest, len(chains) - 1 + sum(chains))
    return deepest


def check_keyword(keyword: str) -> Keyword:
    """Compile a ``-k`` expression within bounds; raise :class:`UsageError` (one line) when it is not one."""
    if len(keyword) > MAX_EXPRESSION_CHARS:
        raise UsageError(f"-k: longer than {MAX_EXPRESSION_CHARS:,} characters")
    if _depth(keyword) > MAX_EXPRESSION_DEPTH:
        raise UsageError(f"-k: nested deeper than {MAX_EXPRESSION_DEPTH} levels of 'not' and parentheses")
    try:
        return compile_keyword(keyword)
    except KeywordSyntaxError as error:
        raise UsageError(f"-k {keyword!r}: {error.message}") from None


_PASTED_LINE = re.compile(r"^(?P<name>\S[^\n]*?\.feature::.*?)(?:\s{2,}[A-Z]+-\d+(?:,[A-Z]+-\d+)*)?\s*$")
"""A line ``--co`` prints: ``file.feature::Name [example]``, then maybe the requirement column."""


def template_name(name: str) -> str:
    """``file.feature::Name [example]`` -> ``file.feature::Name`` (an outline's scenario, every example)."""
    return name.rsplit(" [", 1)[0] if name.endswith("]") else name


def pasted_scenarios(keyword: str, scenarios: Iterable[ScenarioRef]) -> frozenset[str] | None:
    """The scenario names a ``-k`` text holds when it is what ``--co`` prints pasted back (one or more lines
    ``file.feature::Name [example]``, the requirement column kept or not); None for a ``-k`` expression.

    A text that names a feature file's scenario (``.feature::``) but none of the suite's is a usage error:
    as an expression it could match nothing.
    """
    if ".feature::" not in keyword:
        return None
    if len(keyword) > MAX_EXPRESSION_CHARS * 10:  # ten --co lines' worth of names at most
        raise UsageError(f"-k: longer than {MAX_EXPRESSION_CHARS * 10:,} characters")
    known = {f"{s.feature_file}::{s.name}" for s in scenarios}
    chosen: set[str] = set()
    for line in filter(str.strip, keyword.splitlines()):
        match = _PASTED_LINE.match(line.strip())
        name = match["name"].rstrip() if match else line.strip()
        if template_name(name) not in known and name not in known:
            raise UsageError(f"-k: {name!r} names no scenario of the suite (run --co to see their names)")
        chosen.add(name)
    return frozenset(chosen)


def pasted_match(nodeid: str, pasted: frozenset[str]) -> bool:
    """Whether the scenario ``nodeid`` is one the pasted names select (a name without an example: all of them)."""
    return nodeid in pasted or template_name(nodeid) in pasted


def options_selection(selection: Selection) -> str | None:
    """The selection ``--tags`` and ``-k`` make (``--tags AC-3 -k emoji``), or None for every scenario."""
    keyword = "; ".join(filter(None, selection.keyword.splitlines())) if selection.keyword else None  # pasted lines
    chosen = [f"{flag} {value}" for flag, value in (("--tags", selection.tags), ("-k", keyword)) if value]
    return " ".join(chosen) or None


def _matcher(scenario: ScenarioRef) -> Matcher:
    words = [scenario.name, scenario.feature_file, *(t.lstrip("@") for t in scenario.tags)]
    names = frozenset(w.casefold() for w in words)
    return lambda name, /, **_: keyword_matches(name, names)


def select(scenarios: Sequence[ScenarioRef], tags: str | None, keyword: str | None) -> list[ScenarioRef]:
    """The scenarios a ``--tags`` / ``-k`` selection keeps (``-k`` matched on name, file and tags)."""
    kept = list(scenarios)
    if tags:
        wanted = set(canonical_tags(tags, scenarios).split(","))
        kept = [s for s in kept if wanted & {t.lstrip("@") for t in s.tags}]
    if keyword:
        pasted = pasted_scenarios(keyword, scenarios)
        if pasted is not None:  # what --co printed, pasted back: those scenarios (an example: its outline)
            templates = {template_name(name) for name in pasted}
            return [s for s in kept if f"{s.feature_file}::{s.name}" in templates]
        expression = check_keyword(keyword)
        kept = [s for s in kept if expression.evaluate(_matcher(s))]
    return kept
