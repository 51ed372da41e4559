"""The language of the runner's output, and its messages, from the files in ``locales/``.

One YAML file per language maps a message key to its text, with ``{field}`` placeholders
(``str.format``). Adding a message is one line in each file; the kit's tests check that both
files have the same keys. Requirement statements and titles come from ``spec/`` (their
``statement_zh`` / ``title_zh``), not from the locale files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

import ccweb_spec
from ccweb_spec import yaml_data

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "Localised",
    "Messages",
    "Phrase",
    "Term",
    "locale_messages",
    "messages",
    "phrase",
    "pick_language",
    "spoken",
    "terms",
    "translated",
]

LANGUAGES = ("en", "zh-CN")
DEFAULT_LANGUAGE = "en"


def pick_language(option: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """``--lang`` when given; else the first set of LC_ALL, LANG: ``zh...`` is zh-CN; else en."""
    if option is not None:
        if option not in LANGUAGES:
            raise ValueError(f"unknown language {option!r}; known: {', '.join(LANGUAGES)}")
        return option
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LANG") if env.get(name)), "")
    return "zh-CN" if locale.lower().startswith("zh") else DEFAULT_LANGUAGE


@cache
def locale_messages(language: str) -> Mapping[str, str]:
    """The messages of a language (its file in ``locales/``): key -> text."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    text = files("ccweb_conformance").joinpath("locales", f"{language}.yaml").read_text(encoding="utf-8")
    data: dict[str, str] = yaml_data(text)
    return data


_PLACEHOLDER = re.compile(r"\\\{(\w+)\\\}")


@cache
def _sentences(language: str, kind: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The ``kind`` table (checks, expected) of ``locales/checks.<language>.yaml`` as (whole-text pattern, text)."""
    table: dict[str, str] = _check_locale(language).get(kind) or {}
    return tuple(
        (re.compile(_PLACEHOLDER.sub(r"(?P<\1>.*?)", re.escape(english)), re.DOTALL), text)
        for english, text in table.items()
    )


@cache
def _check_locale(language: str) -> dict[str, Any]:
    """``locales/checks.<language>.yaml`` as data; empty when the language has none."""
    resource = files("ccweb_conformance").joinpath("locales", f"checks.{language}.yaml")
    if not resource.is_file():
        return {}
    data: dict[str, Any] = yaml_data(resource.read_text(encoding="utf-8"))
    return data


def _fields_in(language: str, fields: dict[str, str]) -> dict[str, str]:
    """The captured values as ``language`` shows them: lists of numbers joined its way, nested sentences translated."""
    locale = _check_locale(language)
    lists = locale.get("lists") or {}  # the placeholders that hold a list of numbers, and the language's separator
    for name in frozenset(lists.get("placeholders", ())) & fields.keys():
        if re.fullmatch(r"\d+(, \d+)*", fields[name]):
            fields[name] = fields[name].replace(", ", str(lists.get("separator", ", ")))
    # the placeholders that hold several English sentences joined by "; ", with the table for each sentence
    for name, style in (locale.get("nested") or {}).items():
        if name in fields:
            parts = fields[name].split("; ")
            fields[name] = style["separator"].join(translated(part, language, style["table"]) for part in parts)
    return fields


def translated(text: str, language: str, kind: str = "checks") -> str:
    """An English check sentence (``kind="checks"``) or expected-value description (``"expected"``) in
    ``language``; quoted values in it are carried over, lists of numbers joined as the language joins them;
    unchanged when the language has no entry for it."""
    for pattern, sentence in _sentences(language, kind):
        match = pattern.fullmatch(text)
        if match is not None:
            return sentence.format(**_fields_in(language, match.groupdict()))
    return text


def describes(text: str) -> bool:
    """Whether ``text`` is one of the expected-value descriptions (``structuredContent or a text block holding
    ...``): words to show as they are, never as a quoted JSON string with its quotes escaped."""
    return any(pattern.fullmatch(text) for pattern, _ in _sentences("zh-CN", "expected"))


@dataclass(frozen=True)
class Term:
    """One entry of the terminology (locales/terms.yaml): how Chinese text names an English term."""

    en: str
    zh: str
    note_en: str
    note_zh: str
    forms: tuple[str, ...]
    """The English forms that may not stand in Chinese text (except as a gloss after the term)."""


@cache
def terms() -> tuple[Term, ...]:
    """The one terminology of the kit's Chinese text."""
    text = files("ccweb_conformance").joinpath("locales", "terms.yaml").read_text(encoding="utf-8")
    return tuple(
        Term(t["en"], t["zh"], t["note_en"], t["note_zh"], tuple(t["forms"])) for t in yaml_data(text)["terms"]
    )


@dataclass(frozen=True)
class Phrase:
    """Words a check hands to the reports, said in the report's language: a message key and its fields.

    A field is text (carried as it is: a name, a number), another phrase, or a tuple of them (said as a
    list). A check's value made of phrases (``got``: the entries seen) reads as words in every language,
    never as English inside Chinese lines nor as Python or JSON literals.
    """

    key: str
    fields: tuple[tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        return messages(DEFAULT_LANGUAGE).words(self)


@dataclass(frozen=True)
class Localised:
    """A name the contract's data gives in both languages (a fact of D-11 and its ``name_zh``): a phrase's field."""

    en: str
    zh: str = ""

    def __str__(self) -> str:
        return self.en


def phrase(key: str, **fields: Any) -> Phrase:
    """The phrase ``key`` with its fields."""
    return Phrase(key, tuple(fields.items()))


def spoken(value: Any) -> bool:
    """Whether ``value`` is words to say (a phrase, or a non-empty list of them), not a value to show as JSON."""
    if isinstance(value, Phrase):
        return True
    return isinstance(value, list | tuple) and bool(value) and all(isinstance(item, Phrase) for item in value)


@dataclass(frozen=True)
class Messages:
    """The messages of one language."""

    language: str

    def __call__(self, key: str, **fields: Any) -> str:
        """The message ``key``, its placeholders filled from ``fields``."""
        table = locale_messages(self.language)
        if key not in table:
            raise KeyError(f"no message {key!r} in the {self.language} messages")
        try:
            return table[key].format(**fields)
        except KeyError as error:
            raise KeyError(f"message {key!r} ({self.language}) needs the field {error}") from None

    def words(self, value: Any) -> str:
        """``value`` said in this language: a phrase by its message, a list joined as a list, anything else as text."""
        if isinstance(value, Phrase):
            return self(value.key, **{name: self.words(field) for name, field in value.fields})
        if isinstance(value, Localised):
            return (value.zh if self.chinese else "") or value.en
        if isinstance(value, list | tuple):
            return self("list.separator").join(self.words(item) for item in value)
        return str(value)

    @property
    def chinese(self) -> bool:
        """Whether statements and titles are shown in Chinese."""
        return self.language == "zh-CN"

    def statement(self, requirement: ccweb_spec.Requirement) -> str:
        """A requirement's statement in this language (English when it has no Chinese one)."""
        return (requirement.statement_zh if self.chinese else "") or requirement.statement

    def title(self, group: ccweb_spec.Group) -> str:
        """A group's title in this language (English when it has no Chinese one)."""
        return (group.title_zh if self.chinese else "") or group.title


def messages(language: str = DEFAULT_LANGUAGE) -> Messages:
    """The messages of ``language`` (``en`` or ``zh-CN``)."""
    locale_messages(language)  # fail here, with the list of languages, on an unknown one
    return Messages(language)
