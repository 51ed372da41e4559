"""Loading and using the expected-failures file."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ccweb_conformance.errors import UsageError
from ccweb_conformance.suite.expected_failures import ExpectedFailures, load_expected_failures, schema

EMOJI = "ac07_unicode.feature::An emoji outside the BMP counts as one"
GOOD = f"""\
version: 1
expected_failures:
  - scenario: "{EMOJI}"   # a node id
    reason: "we count UTF-16 units until #123 lands"
  - requirement: UNI-1
    reason: every Unicode scenario
  - scenario: "ac06_bounds.feature::limit * is rejected"
    reason: outline rows
  - requirement: PROTO-3
    reason: "  no SSE yet  "
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "xfail.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def load(tmp_path: Path, text: str) -> ExpectedFailures:
    return load_expected_failures(write(tmp_path, text))


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(UsageError) as caught:
        load(tmp_path, text)
    message = str(caught.value)
    assert "\n" not in message
    return message.replace(str(tmp_path / "xfail.yaml"), "xfail.yaml")


def test_schema_is_a_valid_2020_12_schema_with_an_id() -> None:
    Draft202012Validator.check_schema(schema())
    assert schema()["$id"].endswith("/expected-failures.schema.json")


def test_loads_entries_with_lines(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    assert [(e.scenario, e.requirement, e.reason, e.line) for e in loaded.entries] == [
        (EMOJI, None, "we count UTF-16 units until #123 lands", 3),
        (None, "UNI-1", "every Unicode scenario", 5),
        ("ac06_bounds.feature::limit * is rejected", None, "outline rows", 7),
        (None, "PROTO-3", "no SSE yet", 9),
    ]


def test_reason_for(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    # the scenario entry wins over the requirement entry that also matches
    assert loaded.reason_for(EMOJI, ("UNI-1",)) == "we count UTF-16 units until #123 lands"
    assert loaded.reason_for("ac07_unicode.feature::A flag", ("UNI-2", "UNI-1")) == "every Unicode scenario"
    assert loaded.reason_for("ac06_bounds.feature::limit 0 is rejected", ("ARG-1",)) == "outline rows"
    assert loaded.reason_for("ac06_bounds.feature::limit 0 is accepted", ("ARG-1",)) is None
    assert loaded.reason_for("ac07_unicode.feature::An emoji outside the BMP counts as one!", ()) is None
    assert loaded.reason_for("x.feature::[a-z] (.*)", ("TOOL-1",)) is None
    assert ExpectedFailures().reason_for(EMOJI, ("UNI-1",)) is None


def test_unmatched(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    name = str(tmp_path / "xfail.yaml")
    assert loaded.unmatched([EMOJI, "ac06_bounds.feature::limit 51 is rejected"], ["UNI-1", "TOOL-1"]) == [
        f"{name}: requirement PROTO-3 (line 9) matched no scenario"
    ]
    assert loaded.unmatched([], []) == [
        f'{name}: scenario "{EMOJI}" (line 3) matched no scenario',
        f"{name}: requirement UNI-1 (line 5) matched no scenario",
        f'{name}: scenario "ac06_bounds.feature::limit * is rejected" (line 7) matched no scenario',
        f"{name}: requirement PROTO-3 (line 9) matched no scenario",
    ]


def test_an_empty_list_is_fine(tmp_path: Path) -> None:
    assert load(tmp_path, "version: 1\nexpected_failures: []\n").entries == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "version: 1\nexpected_failures:\n  - scenario: a\n    reason: [unclosed\n",
            "xfail.yaml: not valid YAML (line 5, column 1: expected ',' or ']', but got '<stream end>')",
        ),
        ("", "xfail.yaml: expected a mapping with version and expected_failures"),
        ("- a\n", "xfail.yaml: expected a mapping with version and expected_failures"),
        ("expected_failures: []\n", "xfail.yaml: missing version"),
        ("version: 1\n", "xfail.yaml: missing expected_failures"),
        ("version: 2\nexpected_failures: []\n", "xfail.yaml: version must be 1, not 2"),
        (
            "version: 1\nexpected_failures: []\nextra: 1\n",
            "xfail.yaml: unknown key 'extra' (allowed: version, expected_failures)",
        ),
        ("version: 1\nexpected_failures: {}\n", "xfail.yaml: expected_failures must be a list of entries"),
        (
            "version: 1\nexpected_failures:\n  - requirement: UNI-1\n    reason: ok\n  - requirement: UNI-2\n",
            "xfail.yaml: entry 2 (line 5): missing reason",
        ),
        (
            "version: 1\nexpected_failures:\n  - requirement: UNI-1\n    reason: '  '\n",
            "xfail.yaml: entry 1 (line 3): reason is empty",
        ),
        (
            "version: 1\nexpected_failures:\n  - requirement: UNI-1\n    reason: 3\n",
            "xfail.yaml: entry 1 (line 3): reason must be a string",
        ),
        (
            "version: 1\nexpected_failures:\n  - reason: why\n",
            "xfail.yaml: entry 1 (line 3): needs a scenario or a requirement",
        ),
        (
            f"version: 1\nexpected_failures:\n  - requirement: UNI-1\n    scenario: '{EMOJI}'\n    reason: why\n",
            "xfail.yaml: entry 1 (line 3): has both scenario and requirement; give exactly one",
        ),
        (
            "version: 1\nexpected_failures:\n  - requirement: UNI-1\n    reason: why\n    why: x\n",
            "xfail.yaml: entry 1 (line 3): unknown key 'why' (allowed: scenario, requirement, reason)",
        ),
        (
            "version: 1\nexpected_failures:\n  - requirement: UNI-9\n    reason: why\n",
            "xfail.yaml: entry 1 (line 3): unknown requirement 'UNI-9'",
        ),
        (
            "version: 1\nexpected_failures:\n  - scenario: An emoji\n    reason: why\n",
            "xfail.yaml: entry 1 (line 3): scenario must look like <file>.feature::<scenario name>, not 'An emoji'",
        ),
        (
            "version: 1\nexpected_failures:\n  - UNI-1\n",
            "xfail.yaml: entry 1 (line 3): expected a mapping with scenario or requirement, and reason",
        ),
    ],
)
def test_errors_name_the_file_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    assert error(tmp_path, text) == message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        load_expected_failures(tmp_path / "nope.yaml")
    assert (
        str(caught.value)
        == f"{tmp_path / 'nope.yaml'}: cannot read the expected-failures file (No such file or directory)"
    )
