"""TOOL-2's failure shows one difference per key, not two cut whole-object blobs (issue 23)."""

from __future__ import annotations

import subprocess

import pytest
from runner.cli.expected_failures_runs import forked_runs

MUTANTS = ("schema_limit_max_100", "schema_extra_property")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    """Each mutant's in-process run on TOOL-2, forked from one process that imported the kit once, two at a time
    (the expected-failures runs' batch), writing its Cucumber JSON in every flavour."""
    folder = tmp_path_factory.mktemp("definition")
    runs = {
        mutant: {"argv": ["run", "--in-process", "--tags", "TOOL-2", "--cucumberjson", str(folder / f"{mutant}.json")],
                 "mutants": [mutant], "calls": ["runner.reports.reports_run:every_flavour"]}
        for mutant in MUTANTS
    }  # fmt: skip
    return forked_runs(folder, runs)


def block(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    start = lines.index("FAIL ac01_tool_definition.feature::The input schema declares exactly the contract's arguments")
    return lines[start + 2 : start + 5]


@pytest.mark.parametrize(
    ("mutant", "expected"),
    [
        (
            "schema_limit_max_100",
            [
                "    check        the input schema's properties differ from the contract",
                "    differences  $.properties.limit.maximum: expected 50, got 100",
                "    sent         tools/list (no arguments field)",
            ],
        ),
        (
            "schema_extra_property",
            [
                "    check        the input schema declares properties the contract does not",
                '    expected     ["conversationId", "limit", "maxChars"]',
                '    got          ["conversationId", "cursor", "limit", "maxChars"]',
            ],
        ),
    ],
)
def test_the_schema_check_names_the_key_that_differs(
    mutant: str, expected: list[str], runs: dict[str, subprocess.CompletedProcess[str]]
) -> None:
    assert block(runs[mutant]) == expected
