"""The catalogued mistakes (checks/mistakes.py): the contract's walk is the reference's, each mistake its own rule."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ccweb_conformance.checks.mistakes import MISTAKES, Walk, answer_under, mistaken_requirement
from ccweb_conformance.checks.oracle import pristine_reference

CONTENTS = st.text(alphabet=st.sampled_from(["a", "b", " ", "😀", "\u200d", "中", "\ud800"]), max_size=12)
MESSAGES = st.lists(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "user", "assistant"]), "content": CONTENTS}), max_size=8
)


def _message(content: str) -> dict[str, str]:
    return {"role": "user", "content": content}


@settings(max_examples=300, deadline=None)
@given(MESSAGES, st.integers(1, 6), st.integers(1, 20))
def test_the_contracts_walk_is_the_reference_cores(messages: list[dict[str, str]], limit: int, max_chars: int) -> None:
    """Walk() with no setting changed answers exactly as the reference's core (the oracle) does."""
    core = pristine_reference()["core"]
    assert answer_under(Walk(), "c1", messages, limit, max_chars) == core.list_user_inputs(
        "c1", messages, limit, max_chars
    )


def test_the_catalogue_is_read_from_its_file_and_each_entry_changes_the_walk() -> None:
    assert [m.id for m in MISTAKES][:3] == ["utf16-units", "utf8-bytes", "zwj-clusters"]
    assert {m.id: m.requirement for m in MISTAKES}["utf16-units"] == "UNI-1"
    assert all(m.walk != Walk() and m.text and m.text_zh for m in MISTAKES)
    assert len({m.id for m in MISTAKES}) == len(MISTAKES)


def test_an_answer_counted_in_utf16_units_is_charged_to_uni_1() -> None:
    messages = [_message("ab"), _message("😀😀")]
    utf16 = answer_under(dataclasses.replace(Walk(), unit="utf16"), "c1", messages, 15, 4)
    assert utf16["items"] == [
        {"messageId": None, "createdAt": None, "content": "😀😀", "contentChars": 4, "originalChars": 4,
         "truncated": False}
    ]
    assert mistaken_requirement(utf16, "c1", messages, 15, 4) == "UNI-1"


def test_the_contracts_own_answer_and_an_unexplained_one_are_charged_to_no_mistake() -> None:
    messages = [_message("ab"), _message("😀😀")]
    right = answer_under(Walk(), "c1", messages, 15, 4)
    assert mistaken_requirement(right, "c1", messages, 15, 4) is None
    utf16 = answer_under(dataclasses.replace(Walk(), unit="utf16"), "c1", messages, 15, 4)
    second_bug = {**utf16, "hasMore": not utf16["hasMore"]}
    assert mistaken_requirement(second_bug, "c1", messages, 15, 4) is None


def test_an_answer_two_rules_explain_is_charged_to_neither() -> None:
    """Every input cut to maxChars = 1: a per-item budget (BUD-4) and a walk that goes on after its cut (BUD-2)
    both give it, so the answer does not tell which rule was broken."""
    messages = [_message("input 1"), _message("input 2")]
    per_item = answer_under(dataclasses.replace(Walk(), budget="per-item"), "c1", messages, 15, 1)
    assert [i["content"] for i in per_item["items"]] == ["i", "i"]
    assert mistaken_requirement(per_item, "c1", messages, 15, 1) is None


@pytest.mark.parametrize("mistake", MISTAKES, ids=lambda m: m.id)
def test_each_mistake_is_recognised_where_it_shows(mistake) -> None:
    """On a conversation where the mistake changes the answer, its answer is charged to its own rule."""
    messages = [_message("first 😀\u200d😀"), _message("second input"), _message("third 😀😀 x"), _message("fourth")]
    shown = [
        (limit, max_chars)
        for limit in (1, 2, 3, 4)
        for max_chars in (1, 5, 6, 9, 12, 14, 16, 20, 40)
        if answer_under(mistake.walk, "c1", messages, limit, max_chars)
        != answer_under(Walk(), "c1", messages, limit, max_chars)
    ]
    assert shown, f"{mistake.id} never changes the answer here"
    charged = {
        mistaken_requirement(answer_under(mistake.walk, "c1", messages, limit, chars), "c1", messages, limit, chars)
        for limit, chars in shown
    }
    assert mistake.requirement in charged
    assert charged <= {mistake.requirement, None}
