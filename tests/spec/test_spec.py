"""Self-checks of the contract data in spec/."""

from __future__ import annotations

from collections import Counter

import pytest
from jsonschema import Draft202012Validator

import ccweb_spec
from ccweb_conformance.checks import description_check
from ccweb_reference.server import TOOL

REQUIREMENTS = ccweb_spec.requirements()
ALL_SCHEMAS = [*ccweb_spec.SCHEMA_NAMES, "output"]


@pytest.mark.parametrize("name", ALL_SCHEMAS)
def test_schema_is_valid_2020_12(name: str) -> None:
    document = ccweb_spec.output_schema() if name == "output" else ccweb_spec.schema(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(document)


def _labelled_examples() -> list[tuple[str, str, dict[str, object]]]:
    cases = [(name, name, example) for name in ccweb_spec.SCHEMA_NAMES for example in ccweb_spec.examples(name)]
    cases += [("output", name, example) for name in ("success", "error") for example in ccweb_spec.examples(name)]
    return cases


@pytest.mark.parametrize(
    ("schema_name", "example_file", "example"),
    _labelled_examples(),
    ids=[f"{s}:{f}:{e['description']}" for s, f, e in _labelled_examples()],
)
def test_examples_validate_as_labelled(schema_name: str, example_file: str, example: dict[str, object]) -> None:
    assert ccweb_spec.validator(schema_name).is_valid(example["data"]) is example["valid"]


def test_every_example_file_has_both_labels() -> None:
    for name in ccweb_spec.SCHEMA_NAMES:
        assert {e["valid"] for e in ccweb_spec.examples(name)} == {True, False}, name


def test_requirement_ids_unique_with_level_source_and_group() -> None:
    ids = Counter(r.id for r in REQUIREMENTS)
    assert [i for i, n in ids.items() if n > 1] == []
    group_ids = [g.id for g in ccweb_spec.groups()]
    assert len(group_ids) == len(set(group_ids))
    for requirement in REQUIREMENTS:
        assert requirement.level in {"MUST", "SHOULD"}, requirement.id
        assert len(requirement.source) >= 1, requirement.id
        assert all(isinstance(s, str) and s.strip() for s in requirement.source), requirement.id
        assert requirement.group in group_ids, requirement.id
        assert requirement.statement, requirement.id


def test_every_group_has_a_requirement() -> None:
    assert {g.id for g in ccweb_spec.groups()} == {r.group for r in REQUIREMENTS}


@pytest.mark.parametrize("cited", [f"D-{n}" for n in range(1, 14)] + [f"AC-{n}" for n in range(1, 11)])
def test_every_decision_and_acceptance_criterion_is_cited(cited: str) -> None:
    assert any(cited in r.source for r in REQUIREMENTS)


def test_error_enum_equals_the_registry() -> None:
    enum = ccweb_spec.schema("error")["properties"]["error"]["properties"]["code"]["enum"]
    codes = [e.code for e in ccweb_spec.error_codes()]
    assert codes == [
        "invalid_arguments",
        "missing_source_conversation",
        "invalid_conversation_id",
        "conversation_not_found",
        "conversation_unreadable",
    ]
    assert enum == codes


def test_error_registry_requirements_exist() -> None:
    known = {r.id for r in REQUIREMENTS}
    for entry in ccweb_spec.error_codes():
        assert entry.requirements, entry.code
        assert set(entry.requirements) <= known, entry.code


def test_whitespace_is_exactly_the_ecmascript_trim_set() -> None:
    expected = {chr(c) for c in [*range(0x09, 0x0E), 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B)]}
    expected |= {chr(c) for c in (0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF)}
    assert ccweb_spec.whitespace() == frozenset(expected)
    assert ccweb_spec.near_whitespace() == ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u180e", "\u200b")
    assert not set(ccweb_spec.near_whitespace()) & ccweb_spec.whitespace()


def test_tool_definition() -> None:
    tool = ccweb_spec.tool_definition()
    assert tool["name"] == "ccweb_list_user_inputs"
    assert tool["inputSchema"] == ccweb_spec.schema("input")
    assert tool["outputSchema"] == ccweb_spec.output_schema()
    assert tool["annotations"]["readOnlyHint"] is True
    assert tool["_meta"] == {"dev.ccweb/contract-version": "1.0.0"}
    assert ccweb_spec.contract_version() == "1.0.0"
    properties = tool["inputSchema"]["properties"]
    assert tool["inputSchema"]["additionalProperties"] is False
    assert sorted(properties) == ["conversationId", "limit", "maxChars"]
    bounds = {name: [properties[name][k] for k in ("minimum", "maximum", "default")] for name in ("limit", "maxChars")}
    assert bounds == {"limit": [1, 50, 15], "maxChars": [1, 1000, 1000]}


def unmet_facts(description: str) -> set[str]:
    """The description facts (D-11) that ``description`` does not state."""
    return {verdict.fact_id for verdict in description_check.unmet_facts(description)}


ZH = "默认读取当前会话最近 15 条用户输入，合计最多 1000 字，用于验收前核对用户要求。"  # noqa: RUF001


def test_description_facts_are_the_four_of_d11() -> None:
    assert [f.id for f in ccweb_spec.description_facts()] == [
        "default-current-conversation",
        "latest-15",
        "budget-1000",
        "purpose-acceptance",
    ]


@pytest.mark.parametrize("description", [TOOL["description"], ZH], ids=["reference", "chinese"])
def test_description_states_every_fact(description: str) -> None:
    assert unmet_facts(description) == set()


@pytest.mark.parametrize(
    ("description", "missing"),
    [
        ("读取最近 15 条用户输入，合计最多 1000 字，用于验收前核对用户要求。", "default-current-conversation"),  # noqa: RUF001
        ("默认读取当前会话的用户输入，合计最多 1000 字，用于验收前核对用户要求。", "latest-15"),  # noqa: RUF001
        ("默认读取当前会话最近 15 条用户输入，用于验收前核对用户要求。", "budget-1000"),  # noqa: RUF001
        ("默认读取当前会话最近 15 条用户输入，合计最多 1000 字。", "purpose-acceptance"),  # noqa: RUF001
        (
            "Returns the latest 15 user inputs, at most 1,000 characters in total. "
            "Use it to check your work against the user's requirements.",
            "default-current-conversation",
        ),
        (
            "By default reads the current conversation and returns at most 1,000 characters. "
            "Use it to check your work against the user's requirements.",
            "latest-15",
        ),
        (
            "By default reads the current conversation and returns its latest 15 user inputs. "
            "Use it to check your work against the user's requirements.",
            "budget-1000",
        ),
        (
            "By default reads the current conversation and returns its latest 15 user inputs, "
            "at most 1,000 characters in total.",
            "purpose-acceptance",
        ),
    ],
)
def test_description_missing_a_fact_fails_that_fact(description: str, missing: str) -> None:
    assert unmet_facts(description) == {missing}
