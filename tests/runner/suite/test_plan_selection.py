"""The engine's selection: ``--tags``, ``-k`` (and ``--co`` lines pasted into it), ``--last-failed``'s names and the
expected-failures file's scenario entries, over the suite as planned."""

from __future__ import annotations

from pathlib import Path

from suite_size import SCENARIOS

from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.suite.expected_failures import load_expected_failures
from ccweb_conformance.suite.plan_selection import choose
from ccweb_conformance.suite.planned import plan_scenarios
from ccweb_conformance.suite.scenario_index import bundled_features, feature_scenarios

FEATURES = bundled_features()
PLAN = plan_scenarios(FEATURES)
REFS = feature_scenarios(FEATURES)
EMOJI = "ac07_unicode.feature::The budget counts an emoji once"
PLAIN = "ac01_tool_definition.feature::The tool is listed under its contract name"


def chosen(options: RunnerOptions, **more: object) -> list[tuple[str, str | None]]:
    return [(planned.nodeid, reason) for planned, _, reason in choose(options, PLAN, REFS, **more)]  # type: ignore[arg-type]


def test_no_selection_keeps_every_scenario_in_run_order() -> None:
    kept = chosen(RunnerOptions())
    assert (len(kept), kept[0]) == (SCENARIOS, (PLAIN, None))


def test_k_matches_names_tags_and_the_feature_files_name() -> None:
    assert chosen(RunnerOptions(keyword="emoji and not surrogate")) == [
        ("ac07_unicode.feature::Truncation keeps whole emoji", None),
        (EMOJI, None),
    ]
    assert len(chosen(RunnerOptions(keyword="ac07"))) == len(chosen(RunnerOptions(tags="AC-7")))
    assert chosen(RunnerOptions(keyword="ccweb_conformance")) == []  # never the folders the kit is installed in


def test_tags_and_k_together_and_pasted_lines() -> None:
    assert chosen(RunnerOptions(tags="tool-1", keyword="listed")) == [(PLAIN, None)]
    row = "ac02_which_conversation.feature::A source conversation that cleans to nothing counts as missing [../..]"
    assert [name for name, _ in chosen(RunnerOptions(keyword=f"{PLAIN}  TOOL-1\n{row}"))] == [PLAIN, row]


def test_last_failed_names_and_scenario_entries(tmp_path: Path) -> None:
    path = tmp_path / "xfail.yaml"
    path.write_text(f'version: 1\nexpected_failures:\n  - scenario: "{EMOJI}"\n    reason: known\n', encoding="utf-8")
    expected = load_expected_failures(path)
    kept = chosen(RunnerOptions(), only=(EMOJI, PLAIN), expected=expected)
    assert kept == [(PLAIN, None), (EMOJI, "known")]  # in run order
