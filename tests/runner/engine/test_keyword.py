"""The engine's ``-k`` parser against pytest's own (``_pytest.mark.expression``, read here only)."""

from __future__ import annotations

import itertools

import pytest
from _pytest.mark.expression import Expression

from ccweb_conformance.engine.keyword import KeywordSyntaxError, compile_keyword

NAMES = [
    frozenset(),
    frozenset({"ac07_unicode.feature", "an emoji counts as one code point", "uni-1"}),
    frozenset({"errors.feature", "test_an_unknown_conversation[x]", "err-2"}),
    frozenset({"true", "false", "none", "a", "b"}),
]
"""Names of scenarios as the kit matches them (casefolded)."""

WORDS = ["a", "b", "not", "and", "or", "(", ")", "ac07", "x(y=1)", "'q'", "=", ",", "#", "True", ""]
"""Pieces the generated expressions are made of: every token kind, an error, and nothing."""

GENERATED = sorted({" ".join(words).strip() for n in range(1, 5) for words in itertools.product(WORDS, repeat=n)})

WRITTEN = [
    "",
    "emoji",
    "EMOJI and not UNI-1",
    "ac07 or errors",
    "not (ac07 or errors)",
    "a or b and not a",
    "(a or b) and not a",
    "not not a",
    "test_an_unknown_conversation[x]",
    "ac07_unicode.feature::an",
    "a/b\\c+d-e.f",
    "x(y=1, z='s', w=True, v=None, u=-3)",
    "x(y=1,",
    "x(1=2)",
    "x(if=2)",
    "x(y=z)",
    "x(y='a\\b')",
    "x(y=\"unclosed)",
    "a and",
    "and a",
    "(a",
    "a)",
    "a\nb",
    "a\tb",
    "a  or  b",
    "é or ü",
    "a @ b",
    "True or False",
    "None",
    "not",
    "()",
]


def matcher(names: frozenset[str]):
    def match(name: str, /, **kwargs: object) -> bool:
        return kwargs.get("w") is not False and any(name.casefold() in n for n in names)

    return match


def pytest_reading(text: str) -> tuple[str, list[bool]] | tuple[str, str]:
    try:
        expression = Expression.compile(text)
    except SyntaxError as error:
        return ("error", str(error.msg))
    return ("verdicts", [expression.evaluate(matcher(names)) for names in NAMES])


def engine_reading(text: str) -> tuple[str, list[bool]] | tuple[str, str]:
    try:
        keyword = compile_keyword(text)
    except KeywordSyntaxError as error:
        return ("error", error.message)
    return ("verdicts", [keyword.evaluate(matcher(names)) for names in NAMES])


@pytest.mark.parametrize("text", WRITTEN)
def test_a_written_expression_is_read_as_pytest_reads_it(text: str):
    assert engine_reading(text) == pytest_reading(text)


def test_every_generated_expression_is_read_as_pytest_reads_it():
    differ = [(text, engine_reading(text), pytest_reading(text)) for text in GENERATED]
    assert [d for d in differ if d[1] != d[2]] == []
    kinds = {reading[0] for _, reading, _ in differ}
    assert kinds == {"error", "verdicts"}
    assert len(GENERATED) > 10_000


@pytest.mark.parametrize(
    ("text", "verdicts"),
    [
        ("emoji", [False, True, False, False]),
        ("a or b and not a", [False, True, True, True]),
        ("(a or b) and not a", [False, False, False, False]),
        ("", [False, False, False, False]),
        ("x(w=False)", [False, False, False, False]),
    ],
)
def test_the_verdicts(text: str, verdicts: list[bool]):
    assert engine_reading(text) == ("verdicts", verdicts)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a and", "expected not OR left parenthesis OR identifier; got end of input"),
        ("(a", "expected right parenthesis; got end of input"),
        ("a @ b", 'unexpected character "@"'),
        ("x(y=\"q)", 'closing quote """ is missing'),
        ("x(if=2)", "unexpected reserved python keyword `if`"),
    ],
)
def test_the_error_messages(text: str, message: str):
    assert engine_reading(text) == ("error", message)


def test_nesting_past_the_interpreter_limit_is_a_syntax_error_not_a_crash():
    with pytest.raises(KeywordSyntaxError) as raised:
        compile_keyword("(" * 5000 + "a" + ")" * 5000)
    assert raised.value.message == "nested too deeply"
