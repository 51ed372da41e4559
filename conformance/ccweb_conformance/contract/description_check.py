"""A liberal, well-defined check that a tool description states the facts of D-11.

The rules and the vocabulary are data in ``spec/description.yaml`` (its header explains
them); this module only applies them:

1. Normalise the text (NFKC, straight apostrophes) and split it into clauses at sentence
   and clause punctuation, line breaks and bullet characters.
2. A fact holds when one clause contains every concept of the fact (a concept is present
   when any of its terms matches) and none of its contradictions.
3. A fact that does not hold is reported with its closest clause: the one that matched the
   most of its concepts (the first such clause), and what it lacks or what contradicts it.

Pure Python; used by the TOOL-3 step and by the labelled corpus test.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import ccweb_spec
from ccweb_spec import DescriptionConcept, DescriptionFact, DescriptionLexicon

__all__ = ["FactVerdict", "check_description", "split_clauses", "unmet_facts"]

_APOSTROPHES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u2032": "'"})
_ALWAYS_SPLIT = "!?;。\n\r"
_ASCII_WORD = "0-9a-z"
_QUOTE_LIMIT = 160
_NUMBER_GROUP = "num"


@dataclass(frozen=True)
class FactVerdict:
    """Whether one fact is stated, with the closest clause and why it falls short."""

    fact_id: str
    name: str
    holds: bool
    closest: str | None
    missing: tuple[str, ...]
    contradicted_by: str | None

    def message(self) -> str:
        """One line naming the fact, quoting the closest clause and what it lacks."""
        if self.holds:
            return f'fact "{self.name}" stated in "{_quote(self.closest or "")}"'
        head = f'fact "{self.name}" not stated: '
        if self.closest is None:
            return head + "no clause mentions " + " or ".join(self.missing)
        reasons = ["missing: " + ", ".join(self.missing)] if self.missing else []
        reasons += [f'contradicted by "{self.contradicted_by}"'] if self.contradicted_by else []
        return head + f'closest clause "{_quote(self.closest)}" ({"; ".join(reasons)})'


def _quote(clause: str) -> str:
    return clause if len(clause) <= _QUOTE_LIMIT else clause[: _QUOTE_LIMIT - 1] + "…"


@cache
def _lexicon() -> DescriptionLexicon:
    return ccweb_spec.description_lexicon()


def normalise(text: str) -> str:
    """NFKC (full-width digits and punctuation become ASCII) and straight apostrophes."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def _splits_at_dot(text: str, index: int, lexicon: DescriptionLexicon) -> bool:
    """A "." ends a clause before a space, the end or a non-ASCII character, unless it ends an abbreviation."""
    following = text[index + 1 : index + 2]
    if following and not following.isspace() and following.isascii():
        return False
    for abbreviation in lexicon.abbreviations:
        start = index + 1 - len(abbreviation)
        preceding = text[start - 1 : start] if start > 0 else ""
        if text[max(start, 0) : index + 1].casefold() == abbreviation and not re.match(f"[{_ASCII_WORD}]", preceding):
            return False
    return True


def split_clauses(text: str, lexicon: DescriptionLexicon | None = None) -> list[str]:
    """The clauses of ``text`` (normalised, whitespace collapsed, leading list markers removed)."""
    lexicon = lexicon or _lexicon()
    text = normalise(text)
    clauses, start = [], 0
    for index, char in enumerate(text):
        numbered = char == "." and text[start:index].strip().isdigit()  # "2. " of a numbered list
        if (
            char in _ALWAYS_SPLIT
            or char in lexicon.bullets
            or (char == "." and not numbered and _splits_at_dot(text, index, lexicon))
        ):
            clauses.append(text[start:index])
            start = index + 1
    clauses.append(text[start:])
    cleaned = (re.sub(r"^(?:[-*+]|\d+[.)])\s+", "", " ".join(c.split())) for c in clauses)
    return [c for c in cleaned if c]


def _guards(word: str, numerals: str) -> tuple[str, str]:
    """Lookarounds that keep a word whole: ASCII against ASCII, Chinese numeral against numeral."""
    ascii_left = f"(?<![{_ASCII_WORD}])"
    ascii_right = f"(?![{_ASCII_WORD}])"
    numeral_class = "[" + re.escape(numerals) + "]"
    first, last = word[0], word[-1]
    left = right = ""
    if re.match(f"[{_ASCII_WORD}]", first):
        left = ascii_left + ("(?<![0-9][.,])" if first.isdigit() else "")
    elif first in numerals:
        left = f"(?<!{numeral_class})"
    if re.match(f"[{_ASCII_WORD}]", last):
        right = ascii_right + ("(?![.,][0-9])" if last.isdigit() else "")
    elif last in numerals:
        right = f"(?!{numeral_class})"
    return left, right


def _number_pattern(lexicon: DescriptionLexicon) -> str:
    words = sorted(lexicon.number_words, key=len, reverse=True)
    alternatives = ["[0-9]+(?:[,. ][0-9]{3})*", *(r"[\s-]*".join(map(re.escape, w.split())) for w in words)]
    guarded = []
    for alternative, sample in zip(alternatives, ["0", *words], strict=True):
        left, right = _guards(sample, lexicon.chinese_numerals)
        guarded.append(left + alternative + right)
    return f"(?P<{_NUMBER_GROUP}>" + "|".join(guarded) + ")"


def _word_pattern(word: str, lexicon: DescriptionLexicon) -> str:
    """One word of a term: alternatives split by "|", each a literal or a stem ("verif*")."""
    if word == "#":
        return _number_pattern(lexicon)
    parts = []
    for alternative in word.split("|"):
        stem = alternative.endswith("*")
        body = alternative.rstrip("*")
        left, right = _guards(body + ("a" if stem else ""), lexicon.chinese_numerals)
        parts.append(left + re.escape(body) + (f"[{_ASCII_WORD}]*" if stem else "") + right)
    return "(?:" + "|".join(parts) + ")"


@cache
def _term_regex(term: str) -> re.Pattern[str]:
    """A term of description.yaml as a regular expression over a casefolded clause."""
    lexicon = _lexicon()
    pattern, joiner = "", ""
    for word in term.casefold().split():
        if word == "...":
            joiner = f".{{0,{lexicon.gap}}}?"
            continue
        pattern += (joiner if pattern else "") + _word_pattern(word, lexicon)
        joiner = r"[\s-]*"
    return re.compile(pattern)


def _number_value(text: str, lexicon: DescriptionLexicon) -> int:
    digits = re.sub(r"[,. ]", "", text)
    if digits.isdigit():
        return int(digits)
    return lexicon.number_words[" ".join(re.split(r"[\s-]+", text))]


def _find(concept: DescriptionConcept, clause: str, number: int | None) -> str | None:
    """The text in ``clause`` that expresses ``concept``, or None (a "#" must differ from ``number``)."""
    lexicon = _lexicon()
    for term in concept.terms:
        for match in _term_regex(term).finditer(clause):
            found = match.groupdict().get(_NUMBER_GROUP)
            if found is None or _number_value(found, lexicon) != number:
                return match.group(0)
    return None


def _verdict(fact: DescriptionFact, clauses: list[str]) -> FactVerdict:
    best: tuple[int, str, tuple[str, ...], str | None] | None = None
    for clause in clauses:
        folded = clause.casefold()
        missing = tuple(c.name for c in fact.concepts if _find(c, folded, fact.number) is None)
        contradiction = next(
            (found for c in fact.contradictions if (found := _find(c, folded, fact.number)) is not None), None
        )
        if not missing and contradiction is None:
            return FactVerdict(fact.id, fact.name, True, clause, (), None)
        score = len(fact.concepts) - len(missing)
        if score and (best is None or score > best[0]):
            best = (score, clause, missing, contradiction)
    if best is None:
        return FactVerdict(fact.id, fact.name, False, None, tuple(c.name for c in fact.concepts), None)
    _, clause, missing, contradiction = best
    return FactVerdict(fact.id, fact.name, False, clause, missing, contradiction)


def check_description(text: str) -> tuple[FactVerdict, ...]:
    """A verdict for every fact of D-11, in the order of description.yaml."""
    clauses = split_clauses(text)
    return tuple(_verdict(fact, clauses) for fact in ccweb_spec.description_facts())


def unmet_facts(text: str) -> tuple[FactVerdict, ...]:
    """The verdicts of the facts ``text`` does not state."""
    return tuple(v for v in check_description(text) if not v.holds)
