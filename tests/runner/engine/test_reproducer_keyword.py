"""Each failure's reproducer selects it alone: a ``-k`` expression built from what pytest matches it by.

The expression is proved with the kit's own ``run --collect-only`` in process: pasted back, it collects
exactly that scenario, for plain scenarios and for outline rows whose example pytest's ``-k`` cannot spell.
"""

from __future__ import annotations

import dataclasses

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.engine.keyword import selecting_keyword
from ccweb_conformance.options import resolve
from ccweb_conformance.suite.engine_session import collect
from ccweb_conformance.values import resolve_values

SAMPLES = {
    "test_the_tool_is_listed_under_its_contract_name": "ac01_tool_definition.feature::"
    "The tool is listed under its contract name",
    "test_a_source_conversation_that_cleans_to_nothing_counts_as_missing[]": "ac02_which_conversation.feature::"
    "A source conversation that cleans to nothing counts as missing []",
    "test_a_source_conversation_that_cleans_to_nothing_counts_as_missing[!?_* .]": "ac02_which_conversation.feature::"
    "A source conversation that cleans to nothing counts as missing [!?_* .]",
    "test_an_explicit_conversationid_that_cleans_to_nothing_never_falls_back_to_the_source[会话]":
    "ac02_which_conversation.feature::An explicit conversationId that cleans to nothing never falls back to the "
    "source [会话]",
}


@pytest.fixture(scope="module")
def suite_keywords() -> list[tuple[str, frozenset[str]]]:
    options = dataclasses.replace(resolve({}), in_process=True, collect_only=True)
    collector, _ = collect(resolve_values(options))
    return collector.suite_keywords


def test_the_plain_name_and_the_outline_rows_get_the_expressions_they_should(suite_keywords) -> None:
    assert selecting_keyword("test_the_tool_is_listed_under_its_contract_name", suite_keywords) == (
        "test_the_tool_is_listed_under_its_contract_name"
    )
    assert selecting_keyword(
        "test_a_source_conversation_that_cleans_to_nothing_counts_as_missing[!?_* .]", suite_keywords
    ) == (
        "test_a_source_conversation_that_cleans_to_nothing_counts_as_missing[ and .] "
        "and not test_a_source_conversation_that_cleans_to_nothing_counts_as_missing[../..]"
    )


def test_every_scenario_of_the_suite_has_one(suite_keywords) -> None:
    assert len(suite_keywords) > 200
    missing = [name for name, _ in suite_keywords if selecting_keyword(name, suite_keywords) is None]
    assert missing == []


@pytest.mark.parametrize("name", list(SAMPLES))
def test_the_expression_collects_exactly_that_scenario(name: str, suite_keywords, capsys) -> None:
    keyword = selecting_keyword(name, suite_keywords)
    assert keyword is not None
    capsys.readouterr()
    assert main(["run", "--in-process", "--co", "-k", keyword]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in lines[:-1]] == [SAMPLES[name]]
    assert lines[-1] == f"1 scenario would run (selection: -k {keyword}); nothing was started"


def test_no_expression_for_a_name_the_suite_does_not_hold(suite_keywords) -> None:
    assert selecting_keyword("test_nothing_of_the_kind", suite_keywords) is None


def test_an_item_no_part_of_whose_name_tells_it_apart_has_none() -> None:
    """A name every part of which another item's names contain: no -k expression selects it alone."""
    items = [("test_ab", frozenset({"test_ab", "x"})), ("test_a", frozenset({"test_a", "x", "test_ab"}))]
    assert selecting_keyword("test_a", items) is None
    assert selecting_keyword("test_ab", items) is None
