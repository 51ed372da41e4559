"""Loading and using the expected-failures file."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from ccweb_conformance.errors import UsageError
from ccweb_conformance.reports.model import ScenarioResult
from ccweb_conformance.suite.expected_failures import ExpectedFailures, Staleness, load_expected_failures, schema

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


def reason_for(loaded: ExpectedFailures, nodeid: str, charged: tuple[str, ...]) -> str | None:
    entry = loaded.entry_for(nodeid, charged)
    return None if entry is None else entry.reason


def test_reason_for(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    # the scenario entry wins over the requirement entry that also matches
    assert reason_for(loaded, EMOJI, ("UNI-1",)) == "we count UTF-16 units until #123 lands"
    assert reason_for(loaded, "ac07_unicode.feature::A flag", ("UNI-1",)) == "every Unicode scenario"
    # a failure is covered only when every requirement it is charged to has an entry
    assert reason_for(loaded, "ac07_unicode.feature::A flag", ("UNI-2", "UNI-1")) is None
    assert reason_for(loaded, "ac10_regression.feature::Same call", ("UNI-1", "PROTO-3")) == "every Unicode scenario"
    assert reason_for(loaded, "ac06_bounds.feature::limit 0 is rejected", ("ARG-1",)) == "outline rows"
    assert reason_for(loaded, "ac06_bounds.feature::limit 0 is accepted", ("ARG-1",)) is None
    assert reason_for(loaded, "ac07_unicode.feature::An emoji outside the BMP counts as one!", ()) is None
    assert reason_for(loaded, "x.feature::[a-z] (.*)", ("TOOL-1",)) is None
    assert reason_for(ExpectedFailures(), EMOJI, ("UNI-1",)) is None


def _scenario(nodeid: str, status: str, tags: tuple[str, ...], charged: tuple[str, ...] = ()) -> ScenarioResult:
    feature_file, name = nodeid.split("::", 1)
    return ScenarioResult(
        feature="f", feature_file=feature_file, scenario=name, line=1, tags=tags, requirements=tags,
        level="MUST", status=status, charged=charged,  # type: ignore[arg-type]
    )


def test_covering_needs_every_charged_requirement(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    assert [e.requirement for e in loaded.covering(("UNI-1", "PROTO-3"))] == ["UNI-1", "PROTO-3"]
    assert loaded.covering(("UNI-1", "UNI-2")) == ()
    assert loaded.covering(()) == ()
    assert loaded.requirements == frozenset({"UNI-1", "PROTO-3"})


def test_stale_entries_fail_a_complete_run(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    name = str(tmp_path / "xfail.yaml")
    tail = ": a stale entry fails the run (the gap is closed: remove the entry)"
    ran = [
        _scenario(EMOJI, "xfailed", ("UNI-1",), ("UNI-1",)),
        # tagged REG-1, charged to UNI-1: the UNI-1 entry covered it
        _scenario("ac10_regression.feature::Same call", "xfailed", ("REG-1",), ("UNI-1",)),
        _scenario("ac06_bounds.feature::limit 51 is rejected", "xfailed", ("ARG-1",)),
        _scenario("protocol.feature::SSE", "passed", ("PROTO-3",)),
    ]
    stale = f"{name}: requirement PROTO-3 (line 9) matched no failure{tail}"
    assert loaded.stale(ran, complete=True).errors == (stale,)
    # the fuzz phase let a PROTO-3 difference pass: the entry covered it
    fuzz = _scenario("fuzz::generated", "passed", ("SEL-1",))
    fuzz.baselined = ("PROTO-3",)
    assert loaded.stale([*ran, fuzz], complete=True) == Staleness()
    assert loaded.stale([], complete=True).errors == (
        f'{name}: scenario "{EMOJI}" (line 3) matched no scenario{tail}',
        f"{name}: requirement UNI-1 (line 5) matched no failure{tail}",
        f'{name}: scenario "ac06_bounds.feature::limit * is rejected" (line 7) matched no scenario{tail}',
        f"{name}: requirement PROTO-3 (line 9) matched no failure{tail}",
    )


def test_a_selection_warns_about_what_it_did_not_reach(tmp_path: Path) -> None:
    loaded = load(tmp_path, GOOD)
    name = str(tmp_path / "xfail.yaml")
    ran = [_scenario(EMOJI, "xfailed", ("UNI-1",), ("UNI-1",)), _scenario("p.feature::SSE", "passed", ("PROTO-3",))]
    stale = loaded.stale(ran, complete=False)
    rows = "ac06_bounds.feature::limit * is rejected"
    assert stale.warnings == (f'{name}: scenario "{rows}" (line 7) matched no scenario',)
    # PROTO-3 was reached (its scenario ran and passed): stale even in a selection
    assert stale.errors == (
        f"{name}: requirement PROTO-3 (line 9) matched no failure: a stale entry fails the run (the gap is closed: "
        "remove the entry)",
    )
    not_run = [_scenario("p.feature::SSE", "notrun", ("PROTO-3",))]
    assert len(loaded.stale(not_run, complete=False).warnings) == 4


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


def test_an_entry_whose_requirement_failed_beside_another_is_not_stale(tmp_path: Path) -> None:
    """A failure charged to UNI-1 and to PROTO-1 (a second bug beside the known one) is not covered, and the run fails
    on it; but the UNI-1 gap is still open, so its entry is not called stale ("the gap is closed" would be false)."""
    loaded = load(tmp_path, GOOD)
    ran = [
        _scenario(EMOJI, "failed", ("UNI-1",), ("UNI-1", "PROTO-1")),
        _scenario("ac06_bounds.feature::limit 51 is rejected", "xfailed", ("ARG-1",)),
        _scenario("protocol.feature::SSE", "xfailed", ("PROTO-3",), ("PROTO-3",)),
    ]
    assert loaded.stale(ran, complete=True) == Staleness()
