"""The description check (D-11, TOOL-3) against its labelled corpus and its own rules."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from paths import REPO

import ccweb_spec
from ccweb_conformance.checks.description_check import (
    FactVerdict,
    check_description,
    clause_pairs,
    quote,
    read_number,
    unmet_facts,
)

CORPUS = ccweb_spec.description_corpus()
TUNED = [item for item in CORPUS if not item.get("heldout")]
HELD_OUT = [item for item in CORPUS if item.get("heldout")]
# The score on the held-out part as last measured: correct ones accepted, wrong ones rejected naming
# exactly their listed facts. It may rise, never fall.
HELD_OUT_FLOOR = {"accepted": 31, "correct": 33, "rejected": 17, "wrong": 17}
FACT_IDS = ["default-current-conversation", "latest-15", "budget-1000", "purpose-acceptance"]
GOOD = "Defaults to the current conversation. Use it to check your work against the user's requirements."


def split_clauses(text: str) -> list[str]:
    """The clauses of ``text`` (normalised, whitespace collapsed, leading list markers removed)."""
    return [normal for normal, _ in clause_pairs(text)]


def fact_message(verdict: FactVerdict) -> str:
    """One line naming the fact, quoting the closest clause and what it lacks (the English the tests read)."""
    if verdict.holds:
        return f'fact "{verdict.name}" stated in "{quote(verdict.closest or "")}"'
    head = f'fact "{verdict.name}" not stated: '
    if verdict.closest is None:
        return head + "no clause mentions " + " or ".join(verdict.missing)
    reasons = ["missing: " + ", ".join(verdict.missing)] if verdict.missing else []
    reasons += [f'contradicted by "{verdict.contradicted_by}"'] if verdict.contradicted_by else []
    return head + f'closest clause "{quote(verdict.closest)}" ({"; ".join(reasons)})'


def _spec_yaml(relative: str) -> Any:
    return yaml.safe_load(ccweb_spec.spec_files().joinpath(relative).read_text(encoding="utf-8"))


def _schema(name: str) -> Draft202012Validator:
    text = ccweb_spec.spec_files().joinpath(f"schemas/{name}.schema.json").read_text(encoding="utf-8")
    document = json.loads(text)
    Draft202012Validator.check_schema(document)
    return Draft202012Validator(document)


def test_corpus_validates_against_its_schema() -> None:
    errors = [e.message for e in _schema("description-corpus").iter_errors(_spec_yaml("examples/descriptions.yaml"))]
    assert errors == []


def test_corpus_schema_requires_the_failing_facts_of_a_failing_item() -> None:
    item = {"id": "x", "lang": "en", "style": "short", "text": "t", "verdict": "fail"}
    validator = _schema("description-corpus")
    assert validator.is_valid({"descriptions": [item]}) is False
    assert validator.is_valid({"descriptions": [{**item, "failing": ["latest-15"]}]}) is True
    assert validator.is_valid({"descriptions": [{**item, "verdict": "pass", "failing": ["latest-15"]}]}) is False
    assert validator.is_valid({"descriptions": [{**item, "failing": ["latest-16"]}]}) is False


def test_facts_file_validates_against_its_schema() -> None:
    errors = [e.message for e in _schema("description-facts").iter_errors(_spec_yaml("description.yaml"))]
    assert errors == []
    assert [f.id for f in ccweb_spec.description_facts()] == FACT_IDS


def test_corpus_size_and_balance() -> None:
    ids = Counter(item["id"] for item in CORPUS)
    assert [i for i, n in ids.items() if n > 1] == []
    correct = Counter(item["lang"] for item in TUNED if item["verdict"] == "pass")
    assert correct["en"] >= 40
    assert correct["zh"] >= 20
    one_fact = [item for item in TUNED if item["verdict"] == "fail" and len(item["failing"]) == 1]
    assert len(one_fact) >= 20
    assert {item["failing"][0] for item in one_fact} == set(FACT_IDS)


def test_corpus_holds_the_descriptions_of_issue_12() -> None:
    full = (
        "Returns the 15 most recent user inputs of a cc-web conversation (the conversation this agent runs in "
        "unless conversationId is given), oldest first, capped at 1,000 characters in total. Use it to confirm "
        "your implementation matches what the user asked for."
    )
    texts = [" ".join(item["text"].split()) for item in CORPUS if item["verdict"] == "pass"]
    assert full in texts
    for phrase in ("up to 15 of the user's latest inputs", "Defaults to the conversation this agent runs in"):
        assert any(phrase in text for text in texts), phrase
    assert any("1000 characters at most" in text for text in texts)


@pytest.mark.parametrize("item", TUNED, ids=[item["id"] for item in TUNED])
def test_corpus_item_gets_its_verdict(item: dict[str, Any]) -> None:
    failing = [verdict.fact_id for verdict in unmet_facts(item["text"])]
    assert failing == item.get("failing", [])


def test_held_out_score_does_not_fall() -> None:
    correct = [item for item in HELD_OUT if item["verdict"] == "pass"]
    wrong = [item for item in HELD_OUT if item["verdict"] == "fail"]
    score = {
        "accepted": sum(not unmet_facts(item["text"]) for item in correct),
        "correct": len(correct),
        "rejected": sum([v.fact_id for v in unmet_facts(item["text"])] == item["failing"] for item in wrong),
        "wrong": len(wrong),
    }
    print("held-out: accepted {accepted}/{correct} correct, rejected {rejected}/{wrong} wrong".format(**score))
    assert (score["correct"], score["wrong"]) == (HELD_OUT_FLOOR["correct"], HELD_OUT_FLOOR["wrong"])
    assert score["accepted"] >= HELD_OUT_FLOOR["accepted"]
    assert score["rejected"] >= HELD_OUT_FLOOR["rejected"]


@pytest.mark.parametrize(
    "path", ["spec/ccweb_spec/tool.json", "examples/node-server/contract/tool.json"], ids=["reference", "node-example"]
)
def test_bundled_descriptions_state_every_fact(path: str) -> None:
    description = json.loads((REPO / path).read_text(encoding="utf-8"))["description"]
    assert [fact_message(v) for v in unmet_facts(description)] == []


def _verdict(text: str, fact_id: str) -> FactVerdict:
    return next(v for v in check_description(text) if v.fact_id == fact_id)


def test_message_names_a_contradicted_fact_and_quotes_the_clause() -> None:
    text = "Returns the latest 15 user inputs, at most 1,000 characters per item. " + GOOD
    assert fact_message(_verdict(text, "budget-1000")) == (
        'fact "total budget of 1,000 characters" not stated: closest clause '
        '"Returns the latest 15 user inputs, at most 1,000 characters per item" (contradicted by "per item")'
    )


def test_message_names_what_the_closest_clause_lacks() -> None:
    text = "Returns the latest 15 user inputs. At most 1,000 in total; 1,000 characters are plenty. " + GOOD
    verdict = _verdict(text, "budget-1000")
    assert fact_message(verdict) == (
        'fact "total budget of 1,000 characters" not stated: closest clause "At most 1,000 in total" '
        "(missing: a character unit)"
    )


def test_message_gives_both_a_lack_and_a_contradiction() -> None:
    text = "Returns the latest 10 user inputs, at most 1,000 characters in total. " + GOOD
    assert fact_message(_verdict(text, "latest-15")) == (
        'fact "latest 15 user inputs" not stated: closest clause '
        '"Returns the latest 10 user inputs, at most 1,000 characters in total" '
        '(missing: the number 15; contradicted by "latest 10 user inputs")'
    )


def test_message_when_no_clause_mentions_the_fact() -> None:
    assert fact_message(_verdict("Lists user inputs.", "purpose-acceptance")) == (
        'fact "purpose of checking work against the user\'s requirements" not stated: '
        "no clause mentions a checking word or what the user asked for"
    )


def test_message_shortens_a_long_clause() -> None:
    text = "Returns the latest 15 user inputs" + ", oldest first" * 20 + ", at most 1,000 characters each. " + GOOD
    message = fact_message(_verdict(text, "budget-1000"))
    quoted = message.split('closest clause "', 1)[1].split('" (', 1)[0]
    assert len(quoted) == 160
    assert quoted.endswith("…")
    assert message.endswith('(contradicted by "characters each")')


def test_a_fact_holds_only_within_one_clause() -> None:
    assert _verdict("Returns the latest inputs. 15 of them.", "latest-15").holds is False
    assert _verdict("Returns the latest inputs, 15 of them.", "latest-15").holds is True


@pytest.mark.parametrize(
    ("text", "clauses"),
    [
        ("At most 1,000 characters. Fine!", ["At most 1,000 characters", "Fine"]),
        ("Use e.g. the 1.5 KB case; ok", ["Use e.g. the 1.5 KB case", "ok"]),
        ("Node.js works. Yes? No", ["Node.js works", "Yes", "No"]),
        ("最近 15 条。合计最多 1000 字；用于验收！对吗？", ["最近 15 条", "合计最多 1000 字", "用于验收", "对吗"]),  # noqa: RUF001
        ("最近１５条．合计１，０００字", ["最近15条", "合计1,000字"]),  # noqa: RUF001
        ("- first\n* second\n2. third • fourth", ["first", "second", "third", "fourth"]),
        ("Reads   the\tcurrent conversation.中文", ["Reads the current conversation", "中文"]),
        ("Reads the current\n    conversation by\r\ndefault", ["Reads the current conversation by default"]),
        ("Summary line.\n\nArgs:\n    limit: 15\n\n  \nEnd", ["Summary line", "Args: limit: 15", "End"]),
        ("Intro:\n  - one\n  2) two\n-not a bullet", ["Intro:", "one", "two -not a bullet"]),
    ],
)
def test_clauses(text: str, clauses: list[str]) -> None:
    assert split_clauses(text) == clauses


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("15", 15),
        ("1,000", 1000),
        ("1 000", 1000),
        ("1.000", 1000),
        ("1k", 1000),
        ("1 thousand", 1000),
        ("1千", 1000),
        ("fifteen", 15),
        ("Fifteen", 15),
        ("one thousand", 1000),
        ("a thousand", 1000),
        ("two hundred and fifty", 250),
        ("twenty-five", 25),
        ("ten thousand", 10000),
        ("十五", 15),
        ("二十五", 25),
        ("一千", 1000),
        ("一千零五", 1005),
        ("一万", 10000),
        ("一〇〇〇", 1000),
        ("两百", 200),
    ],
)
def test_numbers_are_read_by_value(text: str, value: int) -> None:
    assert read_number(text) == value


@pytest.mark.parametrize(
    ("clause", "holds"),
    [
        ("at most 1,000 characters in total, not per input", True),
        ("at most 1,000 characters in total, per input", False),
        ("合计最多 1000 字, 不是每条 1000 字", True),
        ("合计最多 1000 字, 每条 1000 字", False),
        ("each input is not longer than 1,000 characters", False),
    ],
)
def test_a_negation_voids_a_negatable_contradiction(clause: str, holds: bool) -> None:
    assert _verdict(clause, "budget-1000").holds is holds


def test_a_contradiction_names_its_kind() -> None:
    verdict = _verdict("Returns the latest 15 assistant replies.", "latest-15")
    assert (verdict.holds, verdict.contradicted_by, verdict.contradiction) == (False, "15 assistant", "another role")
    assert verdict.contradiction_zh == "另一种角色的消息"


@pytest.mark.parametrize(
    ("clause", "holds"),
    [
        ("the latest 15 inputs", True),
        ("the 15 most recent inputs", True),
        ("the LATEST FIFTEEN inputs", True),
        ("最近十五条", True),
        ("the latest 150 inputs", False),
        ("the latest 1.5 inputs", False),
        ("since 2015, the latest inputs", False),
        ("最近二十五条", False),
        ("the latest 15th inputs", False),
        ("the latest fifteen inputs", True),
        ("the latest Fifteen-odd inputs", True),
        ("the latest 15 assistant replies", False),
        ("the latest 15 user inputs, not the assistant replies", True),
        ("the 15 most recent model responses", False),
        ("最近 15 条助手回复", False),
        ("最近一十五条", True),
    ],
)
def test_numbers_match_whole(clause: str, holds: bool) -> None:
    assert _verdict(clause, "latest-15").holds is holds


@pytest.mark.parametrize(
    ("clause", "holds"),
    [
        ("at most 1,000 characters", True),
        ("at most 1000 characters", True),
        ("at most 1\u00a0000 characters", True),
        ("at most one thousand characters", True),
        ("合计最多一千字", True),
        ("at most 10,000 characters", False),
        ("at most 1,000,000 characters", False),
        ("at most 1,000 characteristics", True),
        ("at most 1,000 chars", True),
        ("at most 1,000 charms", False),
        ("at most 1k characters", True),
        ("at most one thousand chars in total", True),
        ("at most 1 thousand chars in total", True),
        ("at most two thousand characters", False),
        ("合计最多一千个码点", True),
        ("合计最多一万字", False),
        ("合计最多十一千字", False),
    ],
)
def test_words_match_whole_or_as_stems(clause: str, holds: bool) -> None:
    assert _verdict(clause, "budget-1000").holds is holds


CONTRADICTING_EDITS = [
    ("latest-15", r"\b15\b", "12"),
    ("latest-15", r"十五", "十二"),
    ("latest-15", r"\bfifteen\b", "twelve"),
    ("latest-15", r"15 user inputs", "15 assistant replies"),
    ("latest-15", r"15 条用户输入", "15 条助手回复"),
    ("budget-1000", r"1,?000", "2,000"),
    ("budget-1000", r"一千", "两千"),
    ("budget-1000", r"one thousand", "two thousand"),
    ("budget-1000", r"in total", "per input"),
    ("budget-1000", r"合计", "每条"),
    ("default-current-conversation", r"current conversation", "most recently updated conversation"),
    ("default-current-conversation", r"当前会话", "最近更新的会话"),
]
"""(fact, pattern, replacement): an edit that makes a correct description contradict the fact."""


@pytest.mark.parametrize(("fact_id", "pattern", "replacement"), CONTRADICTING_EDITS, ids=str)
def test_an_edit_that_contradicts_a_fact_fails_it_in_every_correct_description(
    fact_id: str, pattern: str, replacement: str
) -> None:
    edited = {
        item["id"]: re.sub(pattern, replacement, item["text"])
        for item in TUNED
        if item["verdict"] == "pass" and re.search(pattern, item["text"])
    }
    assert edited, "the edit applies to no correct description"
    accepted = [key for key, text in edited.items() if fact_id not in {v.fact_id for v in unmet_facts(text)}]
    assert accepted == []
