"""A liberal, well-defined check that a tool description states the facts of D-11.

The rules and the vocabulary are data in ``spec/description.yaml`` (its header explains
them); this module only applies them:

1. Normalise the text (NFKC, straight apostrophes) and split it into clauses at sentence
   and clause punctuation, blank lines, list items and bullet characters; a single line
   break is a space (docstrings and TypeScript strings wrap lines anywhere).
2. A fact holds when one clause contains every concept of the fact (a concept is present
   when any of its terms matches) and none of its contradictions (a negatable one does not
   count right after a negation: "not per input").
3. Numbers are read in digits, English words and Chinese numerals (``15``, ``fifteen``,
   ``十五``; ``1,000``, ``1k``, ``one thousand``, ``一千``) and compared by value.
4. A fact that does not hold is reported with its closest clause: the one that matched the
   most of its concepts (the first such clause), and what it lacks or what contradicts it.

Pure Python; used by the TOOL-3 step, ``ccweb-conformance check-description`` and the
labelled corpus test.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, cached_property
from itertools import accumulate

import ccweb_spec
from ccweb_conformance.i18n import Localised, Phrase, phrase
from ccweb_spec import DescriptionConcept, DescriptionFact, DescriptionLexicon

__all__ = ["FactVerdict", "check_description", "clause_pairs", "read_number", "unmet_facts"]

_APOSTROPHES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u2032": "'"})
_BREAK = "\x1e"  # stands for a blank line or a line starting a list item while splitting
_ALWAYS_SPLIT = "!?;。" + _BREAK
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_LIST_ITEM = re.compile(r"\n[ \t]*(?=(?:[-*+]|\d+[.)])[ \t])")
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")
_ASCII_WORD = "0-9a-z"
_QUOTE_LIMIT = 160
_NUMBER_GROUP = "num"
_DIGITS = r"[0-9]+(?:[,. ][0-9]{3})*"
_MAX_NUMBER_WORDS = 8  # "two hundred and fifty thousand" is five


@dataclass(frozen=True)
class FactVerdict:
    """Whether one fact is stated, with the clause that states it or the closest one and why it falls short."""

    fact_id: str
    name: str
    holds: bool
    closest: str | None
    missing: tuple[str, ...]
    contradicted_by: str | None
    name_zh: str = ""
    missing_zh: tuple[str, ...] = ()
    contradiction: str | None = None
    contradiction_zh: str | None = None

    @property
    def phrase(self) -> Phrase:
        """An unmet fact, for the reports to word in their language: the fact, the closest clause (quoted as
        written), the concepts it lacks and what contradicts it (the fact and concept names of description.yaml
        in both languages)."""
        fact = Localised(self.name, self.name_zh)
        names_zh = self.missing_zh or self.missing
        concepts = tuple(Localised(en, zh) for en, zh in zip(self.missing, names_zh, strict=True))
        if self.closest is None:
            return phrase("fact.nowhere", fact=fact, concepts=concepts)
        clause = quote(self.closest)
        if self.contradicted_by is None:
            return phrase("fact.lacks", fact=fact, clause=clause, concepts=concepts)
        kind = Localised(self.contradiction or "", self.contradiction_zh or "")
        if not self.missing:
            return phrase("fact.contradicted", fact=fact, clause=clause, text=self.contradicted_by, kind=kind)
        return phrase("fact.both", fact=fact, clause=clause, concepts=concepts, text=self.contradicted_by, kind=kind)


def quote(clause: str) -> str:
    """``clause`` shortened to at most 160 characters (an ellipsis marks the cut)."""
    return clause if len(clause) <= _QUOTE_LIMIT else clause[: _QUOTE_LIMIT - 1] + "…"


@cache
def _lexicon() -> DescriptionLexicon:
    return ccweb_spec.description_lexicon()


def normalise(text: str) -> str:
    """NFKC (full-width digits and punctuation become ASCII), straight apostrophes, ``\\n`` line ends."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).replace("\r\n", "\n").replace("\r", "\n")


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


def _aligned(text: str) -> tuple[str, list[int]]:
    """``normalise(text)`` built piece by piece (a character with its combining marks), and for each of its
    characters the index in ``text`` of the piece it came from: clauses are cut on the normalised text and
    shown as written (full-width punctuation kept)."""
    pieces = re.findall(r"\r\n|.[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]*", text, re.DOTALL)
    normals = [normalise(piece) for piece in pieces]
    starts = accumulate(map(len, pieces), initial=0)  # where each piece begins in ``text`` (and the end)
    return "".join(normals), [start for normal, start in zip(normals, starts, strict=False) for _ in normal]


def _blank(match: re.Match[str]) -> str:
    return _BREAK * len(match.group(0))


def clause_pairs(text: str, lexicon: DescriptionLexicon | None = None) -> list[tuple[str, str]]:
    """The clauses of ``text`` as (normalised, as written) pairs, whitespace collapsed, list markers removed."""
    lexicon = lexicon or _lexicon()
    normal, origin = _aligned(text)
    cut = _LIST_ITEM.sub(_blank, _PARAGRAPH.sub(_blank, normal))  # one length: positions stay aligned
    spans, start = [], 0
    for index, char in enumerate(cut):
        numbered = char == "." and cut[start:index].strip(_BREAK + " \t\n").isdigit()  # "2. " of a numbered list
        if (
            char in _ALWAYS_SPLIT
            or char in lexicon.bullets
            or (char == "." and not numbered and _splits_at_dot(cut, index, lexicon))
        ):
            spans.append((start, index))
            start = index + 1
    spans.append((start, len(cut)))
    pairs = []
    for begin, end in spans:
        clause = _LIST_MARKER.sub("", " ".join(cut[begin:end].replace(_BREAK, " ").split()))
        if not clause:
            continue
        written_end = origin[end] if end < len(origin) else len(text)
        written = text[origin[begin] : written_end] if begin < len(origin) else ""
        pairs.append((clause, _LIST_MARKER.sub("", " ".join(written.split())) or clause))
    return pairs


def _guards(word: str, numerals: str) -> tuple[str, str]:
    """Lookarounds that keep a word whole: ASCII against ASCII, Chinese numeral against numeral."""
    numeral_class = "[" + re.escape(numerals) + "]"
    first, last = word[0], word[-1]
    left = right = ""
    if re.match(f"[{_ASCII_WORD}]", first):
        left = f"(?<![{_ASCII_WORD}])" + ("(?<![0-9][.,])" if first.isdigit() else "")
    elif first in numerals:
        left = f"(?<!{numeral_class})"
    if re.match(f"[{_ASCII_WORD}]", last):
        right = f"(?![{_ASCII_WORD}])" + ("(?![.,][0-9])" if last.isdigit() else "")
    elif last in numerals:
        right = f"(?!{numeral_class})"
    return left, right


def _alternatives(words: list[str]) -> str:
    """Words (longest first, so "a thousand" wins over "a") as one group; a space stands for spaces or hyphens."""
    ordered = sorted(words, key=len, reverse=True)
    return "(?:" + "|".join(r"[\s-]+".join(map(re.escape, w.split())) for w in ordered) + ")"


@cache
def _number_pattern() -> str:
    """Digits (with an optional multiplier), a run of English number words, or a run of Chinese numerals."""
    lexicon = _lexicon()
    english = [w for w in [*lexicon.number_words, *lexicon.number_multipliers] if w.isascii() and len(w) > 1]
    suffixes = _alternatives(list(lexicon.number_multipliers))
    word = _alternatives(english)
    numerals = "[" + re.escape(lexicon.chinese_numerals) + "]"
    digits = f"(?<![{_ASCII_WORD}])(?<![0-9][.,]){_DIGITS}(?![.,][0-9])(?:[\\s-]*{suffixes})?(?![{_ASCII_WORD}])"
    # a run of words is bounded: "one two three ..." repeated must not make every match scan to its end
    more = f"(?:[\\s-]+(?:and[\\s-]+)?{word}){{0,{_MAX_NUMBER_WORDS - 1}}}"
    words = f"(?<![{_ASCII_WORD}]){word}{more}(?![{_ASCII_WORD}])"
    chinese = f"(?<!{numerals}){numerals}+(?!{numerals})"
    return f"(?P<{_NUMBER_GROUP}>{digits}|{words}|{chinese})"


def read_number(text: str) -> int:
    """The value of a number as the number pattern finds it ("1,000", "1k", "fifteen", "一千", "一〇〇〇")."""
    lexicon = _lexicon()
    multipliers = {k.casefold(): v for k, v in lexicon.number_multipliers.items()}
    text = text.casefold()
    digits = re.match(_DIGITS, text)
    if digits:
        rest = text[digits.end() :].strip(" -\t\n")
        return int(re.sub(r"[,. ]", "", digits.group(0))) * multipliers.get(rest, 1)
    if text[0].isascii():
        tokens = _english_number_words().findall(text)
        return _compose([" ".join(re.split(r"[\s-]+", t)) for t in tokens], lexicon.number_words, multipliers)
    if not any(char in multipliers for char in text):  # digit by digit: "一〇〇〇"
        return int("".join(str(lexicon.number_words[char]) for char in text))
    return _compose(list(text), lexicon.number_words, multipliers)


@cache
def _english_number_words() -> re.Pattern[str]:
    lexicon = _lexicon()
    words = [w.casefold() for w in [*lexicon.number_words, *lexicon.number_multipliers] if w.isascii()]
    return re.compile(_alternatives(words))


def _compose(tokens: list[str], atoms: dict[str, int], multipliers: dict[str, int]) -> int:
    """Add atoms; a multiplier multiplies the part before it (or 1); 1,000 and up close a group."""
    total = current = 0
    for token in tokens:
        if token in multipliers:
            factor = multipliers[token]
            if factor >= 1000:
                total, current = total + (current or 1) * factor, 0
            else:
                current = (current or 1) * factor
        else:
            current += atoms[token]
    return total + current


def _word_pattern(word: str, lexicon: DescriptionLexicon) -> str:
    """One word of a term: alternatives split by "|", each a literal or a stem ("verif*")."""
    if word.startswith("#"):
        return _number_pattern()
    parts = []
    for alternative in word.split("|"):
        stem = alternative.endswith("*")
        body = alternative.rstrip("*")
        left, right = _guards(body + ("a" if stem else ""), lexicon.chinese_numerals)
        parts.append(left + re.escape(body) + (f"[{_ASCII_WORD}]*" if stem else "") + right)
    return "(?:" + "|".join(parts) + ")"


@dataclass(frozen=True)
class _Term:
    pattern: str
    number: int | None  # the value a "#15" asks for; None for "#" (another number) or no number
    needles: tuple[tuple[str, ...], ...]
    """Per word the term requires (not optional, not a number), its literal alternatives: a clause that holds
    none of one word's cannot match, and is passed over without compiling or running the expression."""

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """The compiled expression (compiled on first use: most terms never meet a clause that could match)."""
        return re.compile(self.pattern)

    def may_match(self, clause: str) -> bool:
        """False only when ``clause`` lacks every literal alternative of a required word."""
        return all(any(needle in clause for needle in alternatives) for alternatives in self.needles)


@cache
def _term(term: str) -> _Term:
    """A term of description.yaml as a regular expression over a casefolded clause."""
    lexicon = _lexicon()
    pattern, joiner, number = "", "", None
    needles: list[tuple[str, ...]] = []
    for written in term.casefold().split():
        if written == "...":
            joiner = f".{{0,{lexicon.gap}}}?"
            continue
        optional = written.endswith("?") and len(written) > 1
        word = written.removesuffix("?") if optional else written
        if word.startswith("#") and word[1:]:
            number = int(word[1:])
        body = _word_pattern(word, lexicon)
        pattern += (joiner if pattern else "") + (f"(?:{body})?" if optional else body)
        joiner = r"[\s-]*"
        if not optional and not word.startswith("#"):
            needles.append(tuple(alternative.rstrip("*") for alternative in word.split("|")))
    return _Term(pattern, number, tuple(needles))


@cache
def _negation() -> re.Pattern[str]:
    lexicon = _lexicon()
    words = []
    for negation in lexicon.negations:
        left, right = _guards(negation.casefold(), lexicon.chinese_numerals)
        words.append(left + r"[\s-]+".join(map(re.escape, negation.casefold().split())) + right)
    return re.compile("|".join(words) or "(?!)")


def _find(concept: DescriptionConcept, clause: str, fact_number: int | None) -> str | None:
    """The text in ``clause`` that expresses ``concept``, or None.

    A "#15" must read 15, a "#" anything but the fact's number; a negatable concept does not
    count where a negation stands inside the match or up to ``gap`` characters before it.
    """
    gap = _lexicon().gap
    for text in concept.terms:
        term = _term(text)
        if not term.may_match(clause):
            continue
        for match in term.regex.finditer(clause):
            found = match.groupdict().get(_NUMBER_GROUP)
            if found is not None:
                value = read_number(found)
                wanted = value == term.number if term.number is not None else value != fact_number
                if not wanted:
                    continue
            if concept.negatable and _negation().search(clause, max(match.start() - gap, 0), match.end()):
                continue
            return match.group(0)
    return None


def _verdict(fact: DescriptionFact, clauses: list[tuple[str, str]]) -> FactVerdict:
    """The fact's verdict over the (normalised, as written) clauses; the clause named is shown as written."""
    best: tuple[int, str, tuple[DescriptionConcept, ...], tuple[DescriptionConcept, str] | None] | None = None
    for normal, clause in clauses:
        folded = normal.casefold()
        missing = tuple(c for c in fact.concepts if _find(c, folded, fact.number) is None)
        contradiction = next(
            ((c, found) for c in fact.contradictions if (found := _find(c, folded, fact.number)) is not None), None
        )
        if not missing and contradiction is None:
            return FactVerdict(fact.id, fact.name, True, clause, (), None, fact.name_zh)
        score = len(fact.concepts) - len(missing)
        if score and (best is None or score > best[0]):
            best = (score, clause, missing, contradiction)
    if best is None:
        names = tuple(c.name for c in fact.concepts)
        names_zh = tuple(c.name_zh or c.name for c in fact.concepts)
        return FactVerdict(fact.id, fact.name, False, None, names, None, fact.name_zh, names_zh)
    _, clause, lacking, contradiction = best
    return FactVerdict(
        fact.id,
        fact.name,
        False,
        clause,
        tuple(c.name for c in lacking),
        contradiction[1] if contradiction else None,
        fact.name_zh,
        tuple(c.name_zh or c.name for c in lacking),
        contradiction[0].name if contradiction else None,
        (contradiction[0].name_zh or contradiction[0].name) if contradiction else None,
    )


def check_description(text: str) -> tuple[FactVerdict, ...]:
    """A verdict for every fact of D-11, in the order of description.yaml."""
    clauses = clause_pairs(text)
    return tuple(_verdict(fact, clauses) for fact in ccweb_spec.description_facts())


def unmet_facts(text: str) -> tuple[FactVerdict, ...]:
    """The verdicts of the facts ``text`` does not state."""
    return tuple(v for v in check_description(text) if not v.holds)
