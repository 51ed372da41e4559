"""Expected/got pairs cut where they differ: the window, its marks, the offset and the path."""

from __future__ import annotations

import re

from ccweb_conformance.checks.failures import fail
from ccweb_conformance.difftext import comparable, cut_pair, first_difference, first_path, where, windowed
from ccweb_conformance.reports.failure_block import headline, scenario_block
from ccweb_conformance.reports.model import FailureDetail, ScenarioResult


def squeezed(line: str) -> str:
    """Runs of 5 or more of d, x or y written as <d*N>, so the expected lines stay readable."""
    return re.sub(r"d{5,}|x{5,}|y{5,}", lambda m: f"<{m.group(0)[0]}*{len(m.group(0))}>", line)


def listing(description: str, read_only: bool) -> dict:
    return {
        "tools": [
            {"name": "ccweb_list_user_inputs", "description": description, "annotations": {"readOnlyHint": read_only}}
        ]
    }


def test_first_difference() -> None:
    assert first_difference("abcdef", "abcxef") == 3
    assert first_difference("abc", "abcdef") == 3
    assert first_difference("abc", "abc") is None
    assert first_difference("", "a") == 0


def test_a_window_keeps_a_quarter_before_the_difference_and_marks_both_cuts() -> None:
    text = "a" * 100 + "X" + "b" * 100
    assert windowed(text, 100, 40) == "[90 characters cut] …" + "a" * 10 + "X" + "b" * 29 + "… [71 more characters]"
    assert windowed(text, 3, 40) == "a" * 40 + "… [161 more characters]"
    assert windowed(text, 200, 40) == "[161 characters cut] …" + "b" * 40
    assert windowed("short", 2, 40) == "short"


def test_a_pair_is_cut_at_the_same_place_around_its_first_difference() -> None:
    expected, actual = "a" * 100 + "X" + "b" * 100, "a" * 100 + "YY" + "b" * 100
    assert cut_pair(expected, actual, 40) == (
        "[90 characters cut] …" + "a" * 10 + "X" + "b" * 29 + "… [71 more characters]",
        "[90 characters cut] …" + "a" * 10 + "YY" + "b" * 28 + "… [72 more characters]",
        100,
    )
    assert cut_pair("abc", "abd", 40) == ("abc", "abd", None)  # short: whole, nothing to locate
    assert cut_pair("a" * 50, "a" * 50, 40) == ("a" * 40 + "… [10 more characters]",) * 2 + (None,)


def test_the_path_of_the_first_differing_member() -> None:
    assert first_path(listing("d", True), listing("d", False)) == "$.tools[0].annotations.readOnlyHint"
    assert first_path({"a": 1, "b": 2}, {"a": 1}) == "$.b"
    assert first_path({"a": 1}, {"a": 1, "z": 0}) == "$.z"
    assert first_path([1, 2], [1, 2, 3]) == "$[2]"
    assert first_path({"n": 1}, {"n": 1.0}) == "$.n"  # 1 and 1.0 are written differently
    assert first_path({"n": True}, {"n": 1}) == "$.n"
    assert first_path(listing("d", True), listing("d", True)) is None
    assert where(2097, listing("d", True), listing("d", False)) == (
        "first difference at character 2,097 ($.tools[0].annotations.readOnlyHint)"
    )
    assert where(12, "abc", "abd") == "first difference at character 12"
    assert where(None, "abc", "abd") is None


def test_a_failure_message_shows_the_two_era_listings_where_they_differ() -> None:
    """PROTO-4: two tools/list listings that differ past 1,500 characters (before: both cut before the difference)."""
    failure = fail(
        "D-16: tools/list describes it differently",
        expected=listing("d" * 2000, True),
        actual=listing("d" * 2000, False),
        proves="PROTO-4",
    )
    assert [squeezed(line) for line in str(failure).splitlines()] == [
        "D-16: tools/list describes it differently",
        '  expected: [606 characters cut] …<d*1456>", "annotations": {"readOnlyHint": true}}]}',
        '  actual:   [606 characters cut] …<d*1456>", "annotations": {"readOnlyHint": false}}]}',
        "  differs:  first difference at character 2,097 ($.tools[0].annotations.readOnlyHint)",
    ]


def _scenario(detail: FailureDetail, requirement: str) -> ScenarioResult:
    return ScenarioResult(
        feature="f", feature_file="protocol.feature", scenario="S", line=1, tags=(requirement,),
        requirements=(requirement,), level="MUST", status="failed", detail=detail, charged=(requirement,),
    )


def test_the_failure_block_and_headline_show_listings_where_they_differ() -> None:
    detail = FailureDetail(
        check="D-16: tools/list describes ccweb_list_user_inputs differently in the two eras",
        expected=listing("d" * 300, True),
        actual=listing("d" * 300, False),
        method="tools/list",
    )
    scenario = _scenario(detail, "PROTO-4")
    assert [squeezed(line) for line in scenario_block(scenario)[3:6]] == [
        '    expected     [206 characters cut] …<d*156>", "annotations": {"readOnlyHint": true}}]}',
        '    got          [206 characters cut] …<d*156>", "annotations": {"readOnlyHint": false}}]}',
        "    differs at   $.tools[0].annotations.readOnlyHint, character 397 of the JSON text (the first difference)",
    ]
    assert squeezed(headline(scenario)) == (
        "PROTO-4: D-16: tools/list describes ccweb_list_user_inputs differently in the two eras: "
        '$.tools[0].annotations.readOnlyHint: expected [326 characters cut] …<d*36>", "annotations": '
        '{"readOnlyHint": true}}]}, got [326 characters cut] …<d*36>", "annotations": {"readOnlyHint": false}}]}'
    )


def test_the_failure_block_shows_a_long_content_where_it_differs() -> None:
    """A result compared field by field: a long content cut in half past its 80th character (before: not shown)."""
    detail = FailureDetail(
        check="items differ",
        expected={"items": [{"content": "x" * 150 + "😀" + "y" * 50}]},
        actual={"items": [{"content": "x" * 150 + "\ud83d" + "y" * 50}]},
        compared=True,
        method="tools/call",
        arguments={},
    )
    scenario = _scenario(detail, "UNI-1")
    line = (
        '$.items[0].content: expected [128 characters cut] …<x*23>😀<y*50>", '
        'got [128 characters cut] …<x*23>\\ud83d<y*50>" (first difference at character 151)'
    )
    assert squeezed(scenario_block(scenario)[3]) == f"    differences  {line}"
    assert squeezed(headline(scenario)) == f"UNI-1: items differ: {line}"


def test_a_file_state_names_what_moved_first() -> None:
    """RO-1: the changed field leads the line, whatever the length of the two fingerprints."""
    from ccweb_conformance.checks.ledger import Fingerprint, moved  # noqa: PLC0415

    before = Fingerprint("file", 120, 1_700_000_000_000_000_000, 1_700_000_000_000_000_000, 42, "ab" * 32)
    after = Fingerprint("file", 120, 1_700_000_000_000_000_000, 1_700_000_000_500_000_000, 42, "ab" * 32)
    [line] = moved({"c.json": before}, {"c.json": after}).values()
    assert line.startswith("changed: ctime_ns 1700000000000000000 -> 1700000000500000000; before: file, 120 bytes")


def test_a_description_against_a_value_is_cut_from_the_start() -> None:
    """``expected: "identical bytes, ..."`` against the files that moved: the texts do not line up, no offset."""
    assert comparable("a", "b") and comparable({}, []) and not comparable("a", {}) and not comparable(1, 2)
    moved_files = {f"{n}.json": "changed: ctime_ns 1 -> 2" for n in range(100)}
    failure = fail("RO-1: files changed", expected="identical bytes", actual=moved_files, proves="RO-1")
    lines = str(failure).splitlines()
    assert lines[1] == "  expected: identical bytes"
    assert lines[2].startswith('  actual:   {"0.json": "changed: ctime_ns 1 -> 2", "1.json"')
    assert len(lines) == 3  # no "differs" line
