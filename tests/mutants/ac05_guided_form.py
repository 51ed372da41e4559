"""Mutants killed by scenarios of features/ccweb_features/ac05_guided_form.feature."""

from __future__ import annotations

import re
from typing import Any

from ccweb_reference.core import Candidate
from mutants.patching import _ORIGINAL_CANDIDATE_OF, _wrap_candidate
from mutants.registry import mutant


@mutant(
    "pending_form_included",
    "SEL-4",
    "A card still waiting for the user is not returned",
    "an assistant message holding a guided-form card counts as a user input",
)
def _() -> None:
    def wrap(message: Any, found: Candidate | None) -> Candidate | None:
        card = isinstance(message, dict) and message.get("role") == "assistant"
        if found is None and card and '"guided_form"' in str(message.get("content")):
            return _ORIGINAL_CANDIDATE_OF({**message, "role": "user"})
        return found

    _wrap_candidate(wrap)


@mutant(
    "form_answers_skipped",
    "SEL-5",
    "The submitted answer is returned and the card is not",
    'user messages that look like a submitted form ("name: value") are skipped',
)
def _() -> None:
    form_answer = re.compile(r"^[A-Za-z_]+: \S")
    _wrap_candidate(lambda m, c: None if c is not None and form_answer.match(c.content) else c)
