# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The contract in two languages, traced to the PRD; docs/SPEC.zh-CN.md is complete and fresh."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import REPO

import ccweb_spec
from ccweb_conformance.cli import kit_version, main
from ccweb_conformance.reports.living_spec import render_spec
from ccweb_conformance.suite.scenario_index import feature_scenarios

COMMITTED_ZH = REPO / "docs" / "SPEC.zh-CN.md"
HAN = re.compile(r"[\u4e00-\u9fff]")
CRITERIA = {f"AC-{n}" for n in range(1, 11)}
DECISIONS = {f"D-{n}" for n in range(1, 17)}
"""The design decisions D-1 .. D-16 of decisions.yaml (D-15 concurrency, D-16 every era and strict JSON)."""


def bilingual_entries() -> list[tuple[str, str, str]]:
    """(where, English, Chinese) for every text of spec/ that must exist in both languages."""
    entries = [(f"requirement {r.id}", r.statement, r.statement_zh) for r in ccweb_spec.requirements()]
    entries += [(f"group {g.id}", g.title, g.title_zh) for g in ccweb_spec.groups()]
    entries += [(f"error {e.code} meaning", e.meaning, e.meaning_zh) for e in ccweb_spec.error_codes()]
    entries += [(f"error {e.code} when", e.when, e.when_zh) for e in ccweb_spec.error_codes()]
    entries += [(f"fact {f.id}", f.fact, f.fact_zh) for f in ccweb_spec.description_facts()]
    entries += [(f"decision {d.id} title", d.title, d.title_zh) for d in ccweb_spec.decisions()]
    entries += [(f"decision {d.id}", d.statement, d.statement_zh) for d in ccweb_spec.decisions()]
    return entries


@pytest.fixture(scope="module")
def rendered() -> str:
    return render_spec(kit_version(), feature_scenarios(), "zh-CN")


# --- the data --------------------------------------------------------------------------


def test_every_entry_is_counted() -> None:
    counts = (len(ccweb_spec.requirements()), len(ccweb_spec.groups()), len(ccweb_spec.error_codes()))
    facts, decisions = len(ccweb_spec.description_facts()), len(ccweb_spec.decisions())
    assert len(bilingual_entries()) == counts[0] + counts[1] + 2 * counts[2] + facts + 2 * decisions


@pytest.mark.parametrize(("where", "english", "chinese"), bilingual_entries(), ids=[e[0] for e in bilingual_entries()])
def test_every_entry_has_english_and_chinese(where: str, english: str, chinese: str) -> None:
    assert english.strip(), where
    assert chinese.strip(), f"{where}: no Chinese text"
    assert chinese != english, f"{where}: the Chinese text is the English one"
    assert HAN.search(chinese), f"{where}: no Chinese characters"


def test_one_term_for_conversation() -> None:
    """会话 throughout, never 对话 (the description patterns accept both; the statements use one)."""
    assert [where for where, _, chinese in bilingual_entries() if "对话" in chinese] == []


@pytest.mark.parametrize("requirement", ccweb_spec.requirements(), ids=lambda r: r.id)
def test_requirement_names_the_prd_and_existing_decisions(requirement: ccweb_spec.Requirement) -> None:
    sections = {s.id: s.items for s in ccweb_spec.prd_sections()}
    assert requirement.prd or requirement.prd_sections, f"{requirement.id} names no PRD criterion or section"
    assert set(requirement.prd) <= CRITERIA, requirement.id
    for cited in requirement.prd_sections:
        name, _, item = cited.partition(" ")
        assert name in sections, f"{requirement.id}: unknown PRD section {cited!r}"
        assert not item or 1 <= int(item) <= sections[name], f"{requirement.id}: no item {cited!r}"
    assert set(requirement.decisions) <= DECISIONS, requirement.id
    cited_in_source = {s for s in requirement.source if re.fullmatch(r"(AC|D)-\d+", s)}
    assert cited_in_source <= set(requirement.prd) | set(requirement.decisions), requirement.id


def test_the_decisions_are_d1_to_d16_in_order_and_each_is_cited() -> None:
    assert [d.id for d in ccweb_spec.decisions()] == [f"D-{n}" for n in range(1, 17)]
    cited = set().union(*(r.decisions for r in ccweb_spec.requirements()))
    assert cited == DECISIONS


def test_chinese_spec_lists_every_decision_with_the_requirements_resting_on_it(rendered: str) -> None:
    for d in ccweb_spec.decisions():
        resting = ", ".join(r.id for r in ccweb_spec.requirements() if d.id in r.decisions)
        assert f"| **{d.id}** | {d.title_zh} | {d.statement_zh} | {resting} |" in rendered, d.id


def test_every_acceptance_criterion_is_traced() -> None:
    assert set().union(*(r.prd for r in ccweb_spec.requirements())) == CRITERIA


def test_prd_sections_are_the_prd_headings() -> None:
    assert [(s.id, s.items) for s in ccweb_spec.prd_sections()] == [
        ("目标", 0),
        ("范围", 0),
        ("入参", 0),
        ("选择与截断", 6),
        ("返回", 0),
        ("错误", 0),
    ]


# --- the Chinese living spec ----------------------------------------------------------


def test_committed_chinese_copy_is_a_fresh_render(rendered: str) -> None:
    assert COMMITTED_ZH.read_text(encoding="utf-8") == rendered, (
        "docs/SPEC.zh-CN.md is out of date: run `ccweb-conformance spec --lang zh-CN --output docs/SPEC.zh-CN.md`"
    )


def test_check_passes_on_the_committed_chinese_copy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--lang", "zh-CN", "--check", str(COMMITTED_ZH)]) == 0
    assert capsys.readouterr() == ("", "")


def test_check_fails_on_a_modified_chinese_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "SPEC.zh-CN.md"
    copy.write_text(COMMITTED_ZH.read_text(encoding="utf-8").replace("会话", "对话", 1), encoding="utf-8")
    assert main(["spec", "--lang", "zh-CN", "--check", str(copy)]) == 1
    assert capsys.readouterr().err == (
        f"ccweb-conformance: {copy} is out of date; run 'ccweb-conformance spec --lang zh-CN --output {copy}'\n"
    )


def test_the_english_render_is_not_the_chinese_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["spec", "--check", str(COMMITTED_ZH)]) == 1
    capsys.readouterr()


def test_chinese_spec_has_no_english_statement_where_a_chinese_one_is_required(rendered: str) -> None:
    unescaped = rendered.replace("\\<", "<").replace("\\|", "|")
    for where, english, chinese in bilingual_entries():
        assert english not in unescaped, f"{where}: English text left in the Chinese spec"
        assert chinese in unescaped, f"{where}: Chinese text missing from the Chinese spec"


def test_chinese_spec_lists_every_requirement_with_its_traceability(rendered: str) -> None:
    for r in ccweb_spec.requirements():
        prd = ", ".join((*r.prd, *r.prd_sections))
        row = f"| **{r.id}** | {r.level} | {r.statement_zh.replace('<', chr(92) + '<')} | {prd} | "
        assert row + ", ".join(r.decisions) + " | " + ", ".join(r.source) + " |" in rendered, r.id


def test_chinese_headings(rendered: str) -> None:
    headings = re.findall(r"^## (.+)$", rendered, re.MULTILINE)
    assert headings == [
        "工具定义",
        "需求",
        "设计决策",
        "术语",
        "错误码注册表",
        "工具描述必须写明的事实",
        "空白字符",
        "Schema 全文",
        "示例",
        "追溯矩阵",
        "各需求捕获的已收录缺陷",
    ]
    groups = re.findall(r"^### (\S+)：(.+)$", rendered, re.MULTILINE)
    assert [g for g in groups if not g[0].startswith("`")][: len(ccweb_spec.groups())] == [
        (g.id, g.title_zh) for g in ccweb_spec.groups()
    ]
