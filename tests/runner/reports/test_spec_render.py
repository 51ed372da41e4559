"""The living spec: docs/SPEC.md is a fresh render of spec/ and features/, and says everything."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest
from paths import REPO
from pytest_bdd.feature import get_features

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.cli import main
from ccweb_conformance.reports.living_spec import render_spec
from ccweb_conformance.suite.scenario_index import feature_scenarios

COMMITTED = REPO / "docs" / "SPEC.md"
FEATURES_DIR = str(files("ccweb_features"))


@pytest.fixture(scope="module")
def rendered() -> str:
    return render_spec(kit_version(), feature_scenarios())


def section(text: str, title: str) -> str:
    """The body of one level-2 section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match is not None, title
    return match.group(1)


def expected_matrix() -> dict[str, set[str]]:
    """Requirement -> 'file :: scenario' for every scenario tagged with it, computed independently."""
    matrix: dict[str, set[str]] = {r.id: set() for r in ccweb_spec.requirements()}
    for feature in get_features([FEATURES_DIR]):
        for scenario in feature.scenarios.values():
            for tag in (set(scenario.tags) | set(feature.tags)) & set(matrix):
                matrix[tag].add(f"{Path(feature.filename).name} :: {scenario.name}")
    return matrix


def test_committed_copy_is_a_fresh_render(rendered: str):
    committed = COMMITTED.read_text(encoding="utf-8")
    assert committed == rendered, "docs/SPEC.md is out of date: run `ccweb-conformance spec --output docs/SPEC.md`"


def test_spec_prints_the_render(rendered: str, capsys: pytest.CaptureFixture[str]):
    assert main(["spec"]) == 0
    assert capsys.readouterr().out == rendered


def test_output_writes_the_render(rendered: str, tmp_path: Path):
    target = tmp_path / "SPEC.md"
    assert main(["spec", "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == rendered


def test_header_gives_both_versions(rendered: str):
    assert rendered.splitlines()[2] == (
        f"Contract version **{ccweb_spec.contract_version()}** · kit version **{kit_version()}**"
    )


def test_every_requirement_is_listed_with_level_statement_and_traceability(rendered: str):
    body = section(rendered, "Requirements")
    for requirement in ccweb_spec.requirements():
        row = next(line for line in body.splitlines() if line.startswith(f"| **{requirement.id}** |"))
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[1] == requirement.level
        assert cells[2].replace("\\<", "<") == requirement.statement
        assert cells[3] == ", ".join((*requirement.prd, *requirement.prd_sections))
        assert cells[4] == ", ".join(requirement.decisions)
        assert cells[5] == ", ".join(requirement.source)


def test_groups_appear_in_file_order_with_acceptance_criteria_first(rendered: str):
    headings = re.findall(r"^### (\S+): ", section(rendered, "Requirements"), re.MULTILINE)
    assert headings == [g.id for g in ccweb_spec.groups()]
    assert headings[:10] == [f"AC-{n}" for n in range(1, 11)]


def test_every_error_code_is_in_the_registry_table(rendered: str):
    body = section(rendered, "Error registry")
    codes = re.findall(r"^\| `([a-z_]+)` \|", body, re.MULTILINE)
    assert codes == [e.code for e in ccweb_spec.error_codes()]


def test_every_description_fact_concept_and_term_is_listed(rendered: str):
    body = section(rendered, "Description facts")
    for fact in ccweb_spec.description_facts():
        assert f"### `{fact.id}`\n\n{fact.fact}\n" in body
        for concept in fact.concepts:
            assert f"- **{concept.name}**: " + ", ".join(f"`{t}`" for t in concept.terms) + "\n" in body + "\n"
        for concept in fact.contradictions:
            assert f"- contradicted by **{concept.name}**: `{concept.terms[0]}`" in body


def test_every_schema_is_printed_in_full(rendered: str):
    body = section(rendered, "Schemas")
    assert body.count("```json\n") == len(ccweb_spec.SCHEMA_NAMES) == 4
    for name in ccweb_spec.SCHEMA_NAMES:
        assert f'"$id": "{ccweb_spec.schema(name)["$id"]}"' in body


def test_examples_show_every_labelled_case(rendered: str):
    body = section(rendered, "Worked examples")
    for name in ccweb_spec.SCHEMA_NAMES:
        for case in ccweb_spec.examples(name):
            marker = f"**{case['description']}**\n" if case["valid"] else f"- {case['description']}: `"
            assert marker in body, (name, case["description"])


def test_matrix_lists_every_scenario_of_every_requirement(rendered: str):
    body = section(rendered, "Traceability")
    listed: dict[str, set[str]] = {}
    for row in re.findall(r"^\| \*\*([A-Z]+-\d+)\*\* \| \w+ \| (.*) \|$", body, re.MULTILINE):
        requirement, cell = row
        labels = {re.sub(r" \(\d+ examples\)$", "", label).replace("`", "") for label in cell.split("<br>")}
        listed[requirement] = labels
    assert listed == expected_matrix()
    every_scenario = {
        f"{Path(f.filename).name} :: {s.name}" for f in get_features([FEATURES_DIR]) for s in f.scenarios.values()
    }
    assert set().union(*listed.values()) == every_scenario


def test_check_passes_on_the_committed_copy(capsys: pytest.CaptureFixture[str]):
    assert main(["spec", "--check", str(COMMITTED)]) == 0
    assert capsys.readouterr() == ("", "")


def test_check_fails_on_a_modified_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    copy = tmp_path / "SPEC.md"
    copy.write_text(COMMITTED.read_text(encoding="utf-8").replace("MUST", "MAY", 1), encoding="utf-8")
    assert main(["spec", "--check", str(copy)]) == 1
    assert capsys.readouterr().err == (
        f"ccweb-conformance: {copy} is out of date; run 'ccweb-conformance spec --output {copy}'\n"
    )
