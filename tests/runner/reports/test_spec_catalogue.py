# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The living spec shows, per requirement, the catalogued bugs its scenarios catch (spec/ccweb_spec/catalogue.yaml)."""

from __future__ import annotations

import re

import pytest
import yaml
from paths import REPO

import ccweb_spec
from ccweb_conformance import kit_version
from ccweb_conformance.i18n import messages
from ccweb_conformance.reports import living_spec
from ccweb_conformance.reports.markdown_text import cell
from ccweb_conformance.suite.scenario_index import feature_scenarios

CATALOGUE = REPO / "spec" / "ccweb_spec" / "catalogue.yaml"
HEADINGS = {"en": "Catalogued bugs caught", "zh-CN": "各需求捕获的已收录缺陷"}
WORDS = {
    "en": {
        "caught": "**{id}** ({level}): catalogued bugs caught: {n}",
        "none": "**{id}** ({level}): no catalogued bug reaches this requirement yet.",
        "bug": "- `{name}`: {description}. Caught by {where}",
        "fuzz": "the fuzz phase every full run ends with ({scenario})",
        "description": "description",
    },
    "zh-CN": {
        "caught": "**{id}**（{level}）：捕获的已收录缺陷 {n} 个",
        "none": "**{id}**（{level}）：尚无已收录缺陷触及这条需求。",
        "bug": "- `{name}`：{description}。捕获场景：{where}",
        "fuzz": "每次完整运行结尾的模糊测试阶段（{scenario}）",
        "description": "description_zh",
    },
}
"""The section's wording, written out here so that a change of it shows."""


@pytest.fixture(scope="module", params=["en", "zh-CN"])
def language(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def section(language: str) -> str:
    """The body of the catalogue's section of the whole render, in ``language``."""
    text = living_spec.render_spec(kit_version(), feature_scenarios(), language)
    match = re.search(rf"^## {HEADINGS[language]}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match is not None
    return match.group(1)


def listed() -> dict[str, list[dict[str, str | None]]]:
    """The committed data, read here without the kit's loader."""
    data: dict[str, list[dict[str, str | None]]] = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))["requirements"]
    return data


def _line(bug: dict[str, str | None], language: str) -> str:
    words = WORDS[language]
    killed_by = cell(str(bug["killed_by"]))
    where = f"`{bug['feature']}` :: {killed_by}" if bug["feature"] else words["fuzz"].format(scenario=killed_by)
    description = cell(str(bug[words["description"]]))
    return words["bug"].format(name=bug["name"], description=description, where=where)


def test_every_requirement_has_its_count_and_one_line_per_bug_in_file_order(section: str, language: str) -> None:
    data = listed()
    expected = []
    for requirement in ccweb_spec.requirements():
        bugs = data[requirement.id]
        head = WORDS[language]["caught" if bugs else "none"].format(
            id=requirement.id, level=requirement.level, n=len(bugs)
        )
        expected.append("\n".join([head, "", *[_line(b, language) for b in bugs]]) if bugs else head)
    paragraphs = section.strip("\n").split("\n\n")
    assert "\n\n".join(paragraphs[1:]) == "\n\n".join(expected)


def test_the_intro_gives_the_catalogue_s_figures(section: str, language: str) -> None:
    data = listed()
    bugs = len({b["name"] for entries in data.values() for b in entries})
    reached = sum(1 for entries in data.values() if entries)
    intro = section.strip("\n").split("\n\n")[0]
    if language == "en":
        assert f" {bugs} catalogued bugs reach {reached} of the {len(data)} requirements. " in intro
    else:
        assert f"共 {bugs} 个已收录缺陷，触及 {len(data)} 条需求中的 {reached} 条。" in intro


def test_the_chinese_section_holds_no_english_description() -> None:
    text = living_spec.render_catalogue(messages("zh-CN"))
    for bugs in listed().values():
        for bug in bugs:
            assert cell(str(bug["description"])) not in text, bug["name"]


def test_a_requirement_no_bug_reaches_says_so_and_a_fuzz_kill_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = (
        ccweb_spec.Requirement("X-1", "MUST", "AC-1", ("PRD",), "one"),
        ccweb_spec.Requirement("X-2", "SHOULD", "AC-1", ("PRD",), "two"),
    )
    bugs = (
        ccweb_spec.CataloguedBug(
            "a_bug", "reads <id>.json | twice", "读两次 <id>.json", "Some scenario [limit-51]", "x.feature"
        ),
        ccweb_spec.CataloguedBug("b_bug", "hangs on 7", "遇 7 挂起", "generated conversations, seed 0", None),
    )
    monkeypatch.setattr(ccweb_spec, "requirements", lambda: rules)
    monkeypatch.setattr(ccweb_spec, "catalogued_bugs", lambda: {"X-1": bugs, "X-2": ()})
    assert living_spec.render_catalogue(messages("en")).split("\n\n")[2:] == [
        "**X-1** (MUST): catalogued bugs caught: 2",
        "- `a_bug`: reads \\<id>.json \\| twice. Caught by `x.feature` :: Some scenario [limit-51]\n"
        "- `b_bug`: hangs on 7. Caught by the fuzz phase every full run ends with (generated conversations, seed 0)",
        "**X-2** (SHOULD): no catalogued bug reaches this requirement yet.",
    ]
    assert living_spec.render_catalogue(messages("zh-CN")).split("\n\n")[2:] == [
        "**X-1**（MUST）：捕获的已收录缺陷 2 个",
        "- `a_bug`：读两次 \\<id>.json。捕获场景：`x.feature` :: Some scenario [limit-51]\n"
        "- `b_bug`：遇 7 挂起。捕获场景：每次完整运行结尾的模糊测试阶段（generated conversations, seed 0）",
        "**X-2**（SHOULD）：尚无已收录缺陷触及这条需求。",
    ]
    assert " 1 of the 2 requirements" in living_spec.render_catalogue(messages("en")).split("\n\n")[1]
