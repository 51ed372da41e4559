"""Mutants killed by scenarios of features/ccweb_features/ac04_exclusions.feature."""

from __future__ import annotations

import dataclasses
from typing import Any

import ccweb_spec
from ccweb_reference import core
from ccweb_reference.core import Candidate
from mutants.patching import _ORIGINAL_CANDIDATE_OF, _wrap_candidate
from mutants.registry import mutant


@mutant(
    "python_strip_whitespace",
    "SEL-2",
    "Characters that only look blank are content",
    "blank means Python's str.strip() removes everything (U+001C-001F, U+0085 count as blank)",
)
def _() -> None:
    core.is_blank = lambda text: not text.strip()


@mutant(
    "whitespace_messages_kept",
    "SEL-1 SEL-2",
    "A user message made only of whitespace is not a candidate",
    "only the empty string is blank; whitespace-only user messages are candidates",
)
def _() -> None:
    core.is_blank = lambda text: text == ""


@mutant(
    "content_trimmed",
    "SEL-8",
    "Content is returned exactly as stored, surrounding whitespace included",
    "content is returned trimmed",
)
def _() -> None:
    _wrap_candidate(lambda m, c: None if c is None else dataclasses.replace(c, content=c.content.strip()))


@mutant(
    "role_case_insensitive",
    "SEL-1",
    "Assistant, tool and system messages are never returned",
    'role is compared case-insensitively ("USER" is a user)',
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        if found is None and isinstance(message, dict) and str(message.get("role", "")).lower() == "user":
            return _ORIGINAL_CANDIDATE_OF({**message, "role": "user"})
        return found

    _wrap_candidate(wrap)


@mutant(
    "non_string_content_coerced",
    "SEL-3",
    "Entries that are not message objects, and non-string content, are skipped",
    "non-string user content is turned into text (str()) instead of skipped",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        content = message.get("content") if isinstance(message, dict) else None
        if found is None and message.get("role") == "user" and content is not None and not isinstance(content, str):
            return _ORIGINAL_CANDIDATE_OF({**message, "content": str(content)})
        return found

    _wrap_candidate(wrap)


@mutant(
    "whitespace_gap_u2001",
    "SEL-2",
    "A user message made only of whitespace is not a candidate",
    "the whitespace set misses U+2001 (a hand-written list with a gap in U+2000-200A)",
)
def _() -> None:
    blank = set(ccweb_spec.whitespace()) - {"\u2001"}
    core.is_blank = lambda text: all(ch in blank for ch in text)


@mutant(
    "crlf_normalized",
    "SEL-8",
    "Content is returned exactly as stored, surrounding whitespace included",
    "CR LF line ends in content are returned as LF",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        return None if found is None else dataclasses.replace(found, content=found.content.replace("\r\n", "\n"))

    _wrap_candidate(wrap)
