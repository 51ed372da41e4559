"""The catalogue's figures (spec/ccweb_spec/catalogue.yaml) are current, complete and in both languages.

No mutant is run: the file is rendered from the declarations (``mutants.figures``), and a copy that
no longer matches them fails here, so CI catches a mutant added without rerunning the script.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from paths import REPO
from runner.reports.test_terminology import english_terms

import ccweb_spec
from mutants import figures
from mutants.catalogue import MUTANTS

SCRIPT = REPO / "scripts" / "catalogue_figures.py"
HAN = re.compile(r"[\u4e00-\u9fff]")
NO_TABLE = "descriptions_zh.yaml: no 'descriptions' table of mutant name -> one line of Chinese"


def script() -> ModuleType:
    """scripts/catalogue_figures.py as a module, to call its ``main`` in this process."""
    spec = importlib.util.spec_from_file_location("catalogue_figures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_figures_are_current() -> None:
    assert figures.COMMITTED.read_text(encoding="utf-8") == figures.catalogue_document(), (
        "spec/ccweb_spec/catalogue.yaml is out of date: run `python scripts/catalogue_figures.py`, "
        "then regenerate docs/SPEC.md and docs/SPEC.zh-CN.md"
    )


def test_every_mutant_has_a_chinese_description_and_no_key_is_stale() -> None:
    chinese = figures.descriptions_zh()
    assert sorted(set(MUTANTS) - set(chinese)) == [], "mutants without a Chinese description"
    assert sorted(set(chinese) - set(MUTANTS)) == [], "descriptions of mutants that no longer exist"


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_chinese_description_is_one_line_of_chinese_in_the_kits_terms(name: str) -> None:
    text = figures.descriptions_zh()[name]
    assert text == " ".join(text.split()) != ""
    assert HAN.search(text), text
    assert english_terms(text) == []


def test_the_loader_gives_each_requirement_the_mutants_declaring_it() -> None:
    chinese = figures.descriptions_zh()
    loaded = ccweb_spec.catalogued_bugs()
    assert list(loaded) == [r.id for r in ccweb_spec.requirements()]
    for rid, bugs in loaded.items():
        declaring = sorted(n for n, m in MUTANTS.items() if rid in m.requirements)
        assert [b.name for b in bugs] == declaring, rid
        for bug in bugs:
            mutant = MUTANTS[bug.name]
            assert (bug.description, bug.description_zh, bug.killed_by) == (
                mutant.description,
                chinese[bug.name],
                mutant.killed_by,
            )
            assert bug.feature == (None if mutant.feature == "fuzz" else f"{mutant.feature}.feature")


def test_a_mutant_counts_for_every_requirement_it_declares_and_an_unreached_one_is_empty() -> None:
    base = MUTANTS["utf16_units"]
    two = dataclasses.replace(base, name="two_rules", requirements=("UNI-1", "TOOL-1"))
    one = dataclasses.replace(base, name="a_first", requirements=("UNI-1",))
    document = figures.catalogue_document({"two_rules": two, "a_first": one}, {"two_rules": "两条", "a_first": "一条"})
    listed = yaml.safe_load(document)["requirements"]
    entry = {
        "name": "two_rules",
        "description": base.description,
        "description_zh": "两条",
        "feature": "ac07_unicode.feature",
        "killed_by": base.killed_by,
    }
    assert listed["UNI-1"] == [{**entry, "name": "a_first", "description_zh": "一条"}, entry]
    assert listed["TOOL-1"] == [entry]
    assert listed["ARG-1"] == []
    assert list(listed) == [r.id for r in ccweb_spec.requirements()]


def test_a_missing_chinese_description_or_an_unknown_requirement_is_named() -> None:
    stray = dataclasses.replace(MUTANTS["utf16_units"], name="stray", requirements=("UNI-99",))
    with pytest.raises(LookupError) as raised:
        figures.catalogue_document({"stray": stray}, {})
    assert str(raised.value) == (
        "stray: no Chinese description in descriptions_zh.yaml; stray: unknown requirement UNI-99"
    )


def test_check_exits_0_on_the_current_file_and_1_on_a_stale_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main = script().main
    assert main(["--check"]) == 0
    stale = tmp_path / "catalogue.yaml"
    stale.write_text(figures.COMMITTED.read_text(encoding="utf-8").replace("utf16_units", "utf16", 1), "utf-8")
    assert main(["--check", "--output", str(stale)]) == 1
    missing = tmp_path / "missing.yaml"
    assert main(["--check", "--output", str(missing)]) == 1
    assert capsys.readouterr() == (
        "",
        f"catalogue_figures: {stale} is out of date; run 'python scripts/catalogue_figures.py --output {stale}'\n"
        f"catalogue_figures: {missing} is out of date; run 'python scripts/catalogue_figures.py --output {missing}'\n",
    )
    assert not missing.exists()


def test_the_script_writes_the_document(tmp_path: Path) -> None:
    target = tmp_path / "catalogue.yaml"
    assert script().main(["--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == figures.catalogue_document()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("descriptions: [a, b]\n", NO_TABLE),
        ("descriptions: {utf16_units: 1}\n", NO_TABLE),
        ("- just a list\n", NO_TABLE),
        ("descriptions: {a: b\n", "descriptions_zh.yaml: not YAML (while parsing a flow mapping"),
    ],
)
def test_a_broken_descriptions_file_is_exit_2_with_a_reason_and_no_traceback(
    text: str, reason: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "descriptions_zh.yaml"
    broken.write_text(text, encoding="utf-8")
    monkeypatch.setattr(figures, "DESCRIPTIONS_ZH", broken)
    assert script().main(["--check"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"catalogue_figures: {reason}")
    assert err.endswith("\n")
    assert err.count("\n") == 1
