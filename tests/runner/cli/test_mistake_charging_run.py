"""Catalogued mistakes without a baseline, end to end: every failure an answer of one catalogued mistake explains is
charged to that mistake's rule alone (DESIGN section 6), in a whole run with the mutant applied."""

from __future__ import annotations

import pytest
from runner.cli.expected_failures_runs import run_mutants

pytestmark = pytest.mark.slow


def test_one_mistake_is_charged_to_its_rule_alone_without_a_baseline(tmp_path):
    """UTF-16 counting with no expected failures: every failed scenario, the budget's and the ZWJ family's included,
    is charged to UNI-1 alone (DESIGN section 6: the answer is exactly what that one catalogued mistake gives)."""
    done, report = run_mutants(tmp_path, ("utf16_units",), "version: 1\nexpected_failures: []\n", "--fuzz", "0")
    assert done.returncode == 1
    failed = {s["name"]: s["failedRequirements"] for s in report["scenarios"] if s["status"] == "failed"}
    assert failed["The budget counts an emoji once"] == ["UNI-1"]
    assert failed["A ZWJ family counts each code point and may be cut inside"] == ["UNI-1"]
    assert {tuple(r) for r in failed.values()} == {("UNI-1",)}
    assert [r["id"] for r in report["requirements"] if r["status"] == "failed"] == ["UNI-1"]


@pytest.mark.parametrize(
    ("mutant", "rule"), [("budget_from_oldest", "BUD-1"), ("skip_instead_of_cut", "BUD-2"), ("utf8_bytes", "UNI-1")]
)
def test_other_catalogued_mistakes_are_charged_to_their_rule(tmp_path, mutant, rule):
    """Mistakes whose failures were charged to 4 to 12 requirements before: every failure the answers explain is
    charged to the mistake's rule alone (utf8_bytes' answers also break the output schema, a check of its own)."""
    done, report = run_mutants(tmp_path, (mutant,), "version: 1\nexpected_failures: []\n", "--fuzz", "0")
    assert done.returncode == 1
    failed = {r["id"] for r in report["requirements"] if r["status"] == "failed"}
    assert failed == ({rule, "PLC-4"} if mutant == "utf8_bytes" else {rule})
