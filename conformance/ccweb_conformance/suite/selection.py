"""Which scenarios a selection names: ``-k`` as pytest reads it (read by the engine's own parser,
``engine/keyword.py``), bounded, and the lines ``--co`` prints pasted into it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ccweb_conformance.engine.keyword import Keyword, KeywordSyntaxError, compile_keyword
from ccweb_conformance.errors import UsageError
from ccweb_conformance.reports.model import ScenarioRef
from ccweb_conformance.values import Selection

__all__ = ["MAX_EXPRESSION_CHARS", "MAX_EXPRESSION_DEPTH", "check_keyword", "options_selection", "pasted_match",
           "pasted_scenarios", "template_name"]

MAX_EXPRESSION_CHARS = 1000
"""Longest ``-k`` or ``--tags`` text accepted."""
MAX_EXPRESSION_DEPTH = 32
"""Deepest nesting of ``not`` and parentheses in a ``-k`` expression (pytest parses it recursively)."""

_TOKEN = re.compile(r"\(|\)|[^\s()]+")


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
        compiled = compile_keyword(keyword)
    except KeywordSyntaxError as error:
        raise UsageError(f"-k {keyword!r}: {error.message}") from None
    if compiled.has_arguments():  # pytest's words, as its -k refuses them
        raise UsageError(f"-k {keyword!r}: keyword expressions do not support call parameters")
    return compiled


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
