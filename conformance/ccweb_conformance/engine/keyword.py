"""The ``-k`` expression: ``and``, ``or``, ``not`` and parentheses over names, read as pytest reads it.

The grammar, the names a word may hold and the error messages are pytest's, so that an expression
selects the same scenarios, and is refused with the same words, whether pytest or the engine reads it:

    expression: expr? EOF
    expr:       and_expr ('or' and_expr)*
    and_expr:   not_expr ('and' not_expr)*
    not_expr:   'not' not_expr | '(' expr ')' | ident kwargs?
    kwargs:     '(' name '=' value (',' name '=' value)* ')'

An empty expression matches nothing. A name is matched by the caller's function (the kit's: a
case-insensitive substring of one of a scenario's names).
"""

from __future__ import annotations

import keyword as python_keyword
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

__all__ = ["Keyword", "KeywordSyntaxError", "Matcher", "compile_keyword", "keyword_matches", "selecting_keyword"]

Value = str | int | bool | None
Matcher = Callable[..., bool]
"""``matcher(name, /, **kwargs) -> bool``: whether a scenario matches one name of the expression."""

_IDENT = re.compile(r"(?:\w|:|\+|-|\.|\[|\]|\\|/)+")
"""What ``-k`` reads as one name (pytest's lexer's identifier); anything else splits a test name."""
_PUNCTUATION = {"(": "left parenthesis", ")": "right parenthesis", "=": "=", ",": ","}
_WORDS = {"or": "or", "and": "and", "not": "not"}
_CONSTANTS: dict[str, Value] = {"True": True, "False": False, "None": None}


class KeywordSyntaxError(ValueError):
    """A ``-k`` expression that is not one; ``message`` is pytest's words for it, without the column."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class _Token:
    kind: str
    """What the error messages call it: ``identifier``, ``left parenthesis``, ``end of input``..."""
    value: str


def _tokens(text: str) -> Iterator[_Token]:
    position = 0
    while position < len(text):
        char = text[position]
        if char in " \t":
            position += 1
        elif char in _PUNCTUATION:
            yield _Token(_PUNCTUATION[char], char)
            position += 1
        elif char in "'\"":
            end = text.find(char, position + 1)
            if end == -1:
                raise KeywordSyntaxError(f'closing quote "{char}" is missing')
            value = text[position : end + 1]
            if "\\" in value:
                raise KeywordSyntaxError('escaping with "\\" not supported in marker expression')
            yield _Token("string literal", value)
            position = end + 1
        else:
            found = _IDENT.match(text, position)
            if found is None:
                raise KeywordSyntaxError(f'unexpected character "{char}"')
            yield _Token(_WORDS.get(found[0], "identifier"), found[0])
            position = found.end()
    yield _Token("end of input", "")


@dataclass(frozen=True)
class _Name:
    text: str
    kwargs: tuple[tuple[str, Value], ...] | None = None


@dataclass(frozen=True)
class _Not:
    operand: _Node


@dataclass(frozen=True)
class _Both:
    left: _Node
    right: _Node
    both: bool
    """True for ``and``, False for ``or``."""


_Node = _Name | _Not | _Both | None
"""None: the empty expression."""


class _Parser:
    """pytest's recursive descent, one method per rule of the grammar."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.current = next(self.tokens)

    def accept(self, kind: str) -> _Token | None:
        token = self.current
        if token.kind != kind:
            return None
        if kind != "end of input":
            self.current = next(self.tokens)
        return token

    def expect(self, kind: str) -> _Token:
        token = self.accept(kind)
        if token is None:
            raise KeywordSyntaxError(f"expected {kind}; got {self.current.kind}")
        return token

    def expression(self) -> _Node:
        if self.accept("end of input"):
            return None
        node = self.either()
        self.expect("end of input")
        return node

    def either(self) -> _Node:
        node = self.both()
        while self.accept("or"):
            node = _Both(node, self.both(), both=False)
        return node

    def both(self) -> _Node:
        node = self.negated()
        while self.accept("and"):
            node = _Both(node, self.negated(), both=True)
        return node

    def negated(self) -> _Node:
        if self.accept("not"):
            return _Not(self.negated())
        if self.accept("left parenthesis"):
            node = self.either()
            self.expect("right parenthesis")
            return node
        name = self.accept("identifier")
        if name is None:
            raise KeywordSyntaxError(f"expected not OR left parenthesis OR identifier; got {self.current.kind}")
        if not self.accept("left parenthesis"):
            return _Name(name.value)
        kwargs = [self.kwarg()]
        while self.accept(","):
            kwargs.append(self.kwarg())
        self.expect("right parenthesis")
        return _Name(name.value, tuple(kwargs))

    def kwarg(self) -> tuple[str, Value]:
        name = self.expect("identifier").value
        if not name.isidentifier():
            raise KeywordSyntaxError(f"not a valid python identifier {name}")
        if python_keyword.iskeyword(name):
            raise KeywordSyntaxError(f"unexpected reserved python keyword `{name}`")
        self.expect("=")
        text = self.accept("string literal")
        if text is not None:
            return name, text.value[1:-1]
        word = self.expect("identifier").value
        if word.isdigit() or (word.startswith("-") and word[1:].isdigit()):
            return name, int(word)
        if word in _CONSTANTS:
            return name, _CONSTANTS[word]
        raise KeywordSyntaxError(f'unexpected character/s "{word}"')


def _evaluate(node: _Node, matcher: Matcher) -> bool:
    if node is None:
        return False
    if isinstance(node, _Name):
        return bool(matcher(node.text, **dict(node.kwargs or ())))
    if isinstance(node, _Not):
        return not _evaluate(node.operand, matcher)
    if node.both:
        return _evaluate(node.left, matcher) and _evaluate(node.right, matcher)
    return _evaluate(node.left, matcher) or _evaluate(node.right, matcher)


def _has_arguments(node: _Node) -> bool:
    if isinstance(node, _Name):
        return node.kwargs is not None
    if isinstance(node, _Not):
        return _has_arguments(node.operand)
    return isinstance(node, _Both) and (_has_arguments(node.left) or _has_arguments(node.right))


@dataclass(frozen=True)
class Keyword:
    """A compiled ``-k`` expression."""

    tree: _Node

    def evaluate(self, matcher: Matcher) -> bool:
        """Whether the names ``matcher`` knows satisfy the expression."""
        return _evaluate(self.tree, matcher)

    def has_arguments(self) -> bool:
        """Whether a name is called with arguments (``x(y=1)``): the grammar's, which pytest refuses for ``-k``."""
        return _has_arguments(self.tree)


def compile_keyword(text: str) -> Keyword:
    """``text`` read as a ``-k`` expression; :class:`KeywordSyntaxError` when it is not one.

    The parser recurses once per ``not`` and parenthesis, as pytest's; callers bound the nesting
    first (``suite/selection.py``), and a deeper one is refused here rather than crashing.
    """
    try:
        return Keyword(_Parser(text).expression())
    except RecursionError:
        raise KeywordSyntaxError("nested too deeply") from None


_RESERVED = frozenset({"and", "or", "not", "true", "false", "none"})


def keyword_matches(term: str, names: frozenset[str]) -> bool:
    """pytest's ``-k`` match of one name: a case-insensitive substring of any of the item's names."""
    needle = term.casefold()
    return any(needle in name for name in names)


def _runs(name: str) -> list[str]:
    """The parts of a test name ``-k`` can spell, longest first (``test_x[!?_* .]``: ``test_x[``, ``.]``, ``_``)."""
    found = [r for r in dict.fromkeys(_IDENT.findall(name)) if r.casefold() not in _RESERVED]
    return sorted(found, key=len, reverse=True)


def selecting_keyword(target: str, items: Sequence[tuple[str, frozenset[str]]]) -> str | None:
    """A ``-k`` expression that selects the item named ``target`` alone among ``items``, or None.

    ``items`` are every item of the suite as (test name, the names ``-k`` matches it by, casefolded).
    The expression is the parts of ``target``'s name that ``-k`` can spell, joined with ``and``, then
    ``and not`` a part of each other item's name that still matches; it is checked with this
    parser against every item, so what is returned selects exactly one.
    """
    own = next((names for name, names in items if name == target), None)
    positive = _runs(target)
    if own is None or not positive:
        return None
    terms = [positive[0]]
    for term in positive[1:]:
        rivals = [names for name, names in items if name != target and all(keyword_matches(t, names) for t in terms)]
        if not rivals:
            break
        if any(not keyword_matches(term, names) for names in rivals):
            terms.append(term)
    negative: list[str] = []
    for name, names in items:
        if name == target or not all(keyword_matches(t, names) for t in terms):
            continue
        excluding = next((r for r in _runs(name) if not keyword_matches(r, own) and keyword_matches(r, names)), None)
        if excluding is None:
            return None
        negative.append(excluding)
    expression = " and ".join([*terms, *(f"not {term}" for term in dict.fromkeys(negative))])
    try:
        compiled = compile_keyword(expression)
    except KeywordSyntaxError:
        return None
    chosen = [name for name, names in items if compiled.evaluate(lambda t, /, _n=names, **_: keyword_matches(t, _n))]
    return expression if chosen == [target] else None
