"""Catalogued mistakes without a baseline, end to end: every failure an answer of one catalogued mistake explains is
charged to that mistake's rule alone (DESIGN section 6), in a whole run with the mutant applied."""

from __future__ import annotations

import pytest
from runner.cli.expected_failures_runs import Ran, Run, run_side_by_side

pytestmark = pytest.mark.slow

NO_BASELINE = "version: 1\nexpected_failures: []\n"
RULES = {"budget_from_oldest": "BUD-1", "skip_instead_of_cut": "BUD-2", "utf8_bytes": "UNI-1"}
"""Mistakes whose failures were charged to 4 to 12 requirements before, and the rule each breaks."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """UTF-16 counting and each mistake of :data:`RULES`: a whole run each without the fuzz phase, side by side."""
    wanted = {mutant: Run((mutant,), NO_BASELINE, ("--fuzz", "0")) for mutant in ("utf16_units", *RULES)}
    return run_side_by_side(tmp_path_factory.mktemp("mistakes"), wanted)


def test_one_mistake_is_charged_to_its_rule_alone_without_a_baseline(runs: dict[str, Ran]) -> None:
    """UTF-16 counting with no expected failures: every failed scenario, the budget's and the ZWJ family's included,
    is charged to UNI-1 alone (DESIGN section 6: the answer is exactly what that one catalogued mistake gives)."""
    done, report, _ = runs["utf16_units"]
    assert done.returncode == 1
    failed = {s["name"]: s["failedRequirements"] for s in report["scenarios"] if s["status"] == "failed"}
    assert failed["The budget counts an emoji once"] == ["UNI-1"]
    assert failed["A ZWJ family counts each code point and may be cut inside"] == ["UNI-1"]
    assert {tuple(r) for r in failed.values()} == {("UNI-1",)}
    assert [r["id"] for r in report["requirements"] if r["status"] == "failed"] == ["UNI-1"]


@pytest.mark.parametrize(("mutant", "rule"), list(RULES.items()))
def test_other_catalogued_mistakes_are_charged_to_their_rule(runs: dict[str, Ran], mutant: str, rule: str) -> None:
    """Mistakes whose failures were charged to 4 to 12 requirements before: every failure the answers explain is
    charged to the mistake's rule alone (utf8_bytes' answers also break the output schema, a check of its own)."""
    done, report, _ = runs[mutant]
    assert done.returncode == 1
    failed = {r["id"] for r in report["requirements"] if r["status"] == "failed"}
    assert failed == ({rule, "PLC-4"} if mutant == "utf8_bytes" else {rule})
