"""Hints for well-known mistakes: the rules are data (``hints.yaml``), matched here.

Each rule has its line in English (``text``) and in Chinese (``text_zh``); the console shows
the one of the run's language.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.i18n import messages
from ccweb_conformance.jsontext import has_lone_surrogate
from ccweb_conformance.reports.diff import MISSING, Difference
from ccweb_spec import yaml_data

__all__ = ["FailureFacts", "Hint", "hint_for", "hints", "startup_line"]


@dataclass(frozen=True)
class Hint:
    """One rule: its ID, its conditions and the line shown, in English and in Chinese."""

    id: str
    when: Mapping[str, Any]
    text: str
    text_zh: str

    def in_language(self, language: str) -> str:
        """The line in ``language`` (``zh-CN``: the Chinese one; anything else: the English one)."""
        return self.text_zh if language == "zh-CN" else self.text


@dataclass(frozen=True)
class FailureFacts:
    """What a hint can look at."""

    requirements: tuple[str, ...]
    check: str
    message: str
    differences: tuple[Difference, ...]
    stored_texts: tuple[str, ...]
    """The string contents of the scenario's stored messages."""
    scenario: str = ""
    """The scenario's name (a hint for what one scenario alone shows)."""


def _line(rule: Mapping[str, Any], key: str) -> str:
    if not isinstance(rule.get(key), str) or not rule[key].strip():
        raise ValueError(f"hints.yaml: the hint {rule.get('id')!r} has no {key}")
    return " ".join(rule[key].split())


@cache
def hints() -> tuple[Hint, ...]:
    """The rules, in file order."""
    document = yaml_data((Path(__file__).parent / "hints.yaml").read_text(encoding="utf-8"))
    return tuple(Hint(h["id"], h["when"], _line(h, "text"), _line(h, "text_zh")) for h in document["hints"])


def _size(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return float(len(value))
    return None


def _trimmed(expected: Any, actual: Any) -> bool:
    if not (isinstance(expected, str) and isinstance(actual, str)) or expected == actual:
        return False
    blank = "".join(ccweb_spec.whitespace())
    return actual in (expected.strip(), expected.strip(blank), expected.lstrip(blank), expected.rstrip(blank))


def _got(relation: str, difference: Difference) -> bool:
    expected, actual = difference.expected, difference.actual
    if relation in ("more", "fewer"):
        low, high = _size(expected), (0.0 if actual is MISSING else _size(actual))
        return low is not None and high is not None and (high > low if relation == "more" else high < low)
    if relation == "lone-surrogate":
        return has_lone_surrogate(actual) and not has_lone_surrogate(expected)
    if relation == "trimmed":
        return _trimmed(expected, actual)
    raise ValueError(f"hints.yaml: unknown relation {relation!r}")


def _difference(rule: Mapping[str, str], differences: Iterable[Difference]) -> bool:
    return any(
        re.search(rule.get("path", ""), d.path) is not None and ("got" not in rule or _got(rule["got"], d))
        for d in differences
    )


def _stored(kind: str, texts: Iterable[str]) -> bool:
    if kind == "non-bmp":
        return any(ord(c) > 0xFFFF for t in texts for c in t)
    if kind == "near-whitespace":
        near = set(ccweb_spec.near_whitespace())
        return any(c in near for t in texts for c in t)
    raise ValueError(f"hints.yaml: unknown stored condition {kind!r}")


def _holds(when: Mapping[str, Any], facts: FailureFacts) -> bool:
    checks = {
        "difference": lambda v: _difference(v, facts.differences),
        "stored": lambda v: _stored(v, facts.stored_texts),
        "requirement": lambda v: bool(set(v) & set(facts.requirements)),
        "check": lambda v: re.search(v, facts.check) is not None,
        "message": lambda v: re.search(v, facts.message) is not None,
        "scenario": lambda v: re.search(v, facts.scenario) is not None,
    }
    unknown = set(when) - set(checks)
    if unknown:
        raise ValueError(f"hints.yaml: unknown condition {sorted(unknown)[0]!r}")
    return all(checks[key](value) for key, value in when.items())


def hint_for(facts: FailureFacts) -> Hint | None:
    """The first rule whose conditions all hold, or None."""
    return next((h for h in hints() if _holds(h.when, facts)), None)


def startup_line(error: str, language: str) -> str:
    """The one error line of a server that could not be started or negotiated with, with its hint if one applies."""
    hint = hint_for(FailureFacts((), error, error, (), ()))
    if hint is None:
        return error
    return messages(language)("block.startup_hint", error=error, hint=hint.in_language(language))
