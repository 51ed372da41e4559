# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The failure block and its hint in Chinese (``--lang zh-CN``): wording, statement, alignment."""

from __future__ import annotations

import dataclasses
import re

import pytest
from paths import REPO
from runner.reports.mutant_console import block, console
from runner.reports.sample_run import make_run
from runner.reports.test_terminology import english_terms

from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.failure_block import reports_line, scenario_block
from ccweb_conformance.reports.hints import _line, hints
from ccweb_conformance.reports.model import FailureDetail, ScenarioResult, StoredConversation
from ccweb_conformance.textwidth import display_width

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _console(mutant: str, *args: str) -> list[str]:
    return console(mutant, "--lang", "zh-CN", *args)


@pytest.fixture(scope="module")
def utf16_lines() -> list[str]:
    """The Chinese console of the UTF-16 mutant's AC-7 run: its failure block, and its terminology."""
    return _console("utf16_units", "--tags", "AC-7")


def test_a_utf16_bug_in_chinese_shows_the_block_the_statement_and_the_hint(utf16_lines: list[str]) -> None:
    lines = utf16_lines
    assert "失败（9）" in lines
    assert block(lines, "FAIL ac07_unicode.feature::Characters outside the BMP count as one [😀-1]") == [
        "FAIL ac07_unicode.feature::Characters outside the BMP count as one [😀-1]",
        "    需求  UNI-1（MUST）：长度按 Unicode 码点计算：BMP 以外的字符（如 emoji）计为 1，"
        "截断时也不会被拆成两个 UTF-16 代理项。",
        "    检查  items 不同",
        "    差异  $.items[0].contentChars：应为 1，实际为 2",
        "          $.items[0].originalChars：应为 1，实际为 2",
        '    请求  tools/call {"conversationId": "UUID"}',
        "    来源  未绑定",
        "    会话  alpha = UUID，共 1 条消息",
        '            [0] user "😀"（U+1F600；1 个码点，2 个 UTF-16 码元）',
        "    提示  长度看起来是按 UTF-16 码元计算的（JavaScript 的 text.length）：应按码点计数，"
        '例如 [...text].length，截断时用 Array.from(text).slice(0, n).join("")',
        "    复现  ccweb-conformance run --in-process -k 'test_characters_outside_the_bmp_count_as_one[ and -1]'",
        "    单独  单独重跑复现：在运行器内新的服务器（--in-process）上单独再跑一次，UNI-1 在同一检查处失败",
    ]
    truncation = block(lines, "FAIL ac07_unicode.feature::Truncation keeps whole emoji")
    assert truncation[3] == (
        '    差异  $.items[0].content：应为 "😀😀😀"（U+1F600），实际为 "😀\\ud83d"（U+1F600 U+D83D）'
    )
    assert lines[-3:-1] == ["完整通信记录：加 -v 运行；供 CI 使用的报告：--junitxml FILE、--json FILE", ""]
    assert re.fullmatch(r"通过 4，失败 9，用时 \d+\.\d\d 秒", lines[-1])


def test_no_english_term_stands_in_a_chinese_failure_block(utf16_lines: list[str]) -> None:
    """The terminology check of ``test_terminology.py`` on a failing run's Chinese console (the run above)."""
    # Scenario names are the features' English text, quoted as they are: left out.
    chinese = [line for line in utf16_lines if CJK.search(line) and ".feature::" not in line]
    assert chinese, utf16_lines
    assert {line: english_terms(line) for line in chinese if english_terms(line)} == {}


def a_failure(**changes: object) -> ScenarioResult:
    detail = FailureDetail(
        check="items differ",
        expected=[{"content": "a"}, {"content": "b"}],
        actual=[{"content": "a"}],
        compared=True,
        arguments=None,
        conversations=(StoredConversation("c-1", "alpha", [{"role": "user", "content": "你好"}]),),
    )
    fields: dict[str, object] = {
        "feature": "F", "feature_file": "f.feature", "scenario": "S", "line": 1, "tags": ("UNI-2",),
        "requirements": ("UNI-2",), "level": "MUST", "status": "failed", "message": "m", "duration_s": 0.0,
        "detail": detail,
    }  # fmt: skip
    return ScenarioResult(**{**fields, **changes})  # type: ignore[arg-type]


def test_every_line_of_a_chinese_block_starts_its_value_at_one_display_column() -> None:
    block = scenario_block(a_failure(), "zh-CN")
    assert block[1:] == [
        block[1],
        "    检查  items 不同",
        '    差异  $：应有 2 个元素，实际有 1 个：[{"content": "a"}]',
        "    请求  （没有调用工具）",
        "    来源  未绑定",
        "    会话  alpha = c-1，共 1 条消息",
        '            [0] user "你好"（2 个码点）',  # ordinary Chinese: no code points (issue 35, 9)
    ]
    labelled = [m for m in (re.match(r"^    \S+ +(?=\S)", line) for line in block[1:]) if m]
    assert [display_width(m.group()) for m in labelled] == [10] * 6  # the value after every label
    assert block[-1].startswith(" " * 12 + "[0]")  # a stored message: 2 columns further in
    assert scenario_block(a_failure())[3] == '    differences  $: expected 2 elements, got 1: [{"content": "a"}]'


def test_the_closing_line_in_both_languages() -> None:
    assert reports_line(["out.xml", "-"], "zh-CN") == "完整报告：out.xml"
    assert reports_line(["out.xml", "-"]) == "full reports: out.xml"


def test_every_hint_has_an_english_and_a_chinese_line() -> None:
    for hint in hints():
        assert hint.text and hint.text_zh and hint.text != hint.text_zh, hint.id
        assert CJK.search(hint.text_zh) and not CJK.search(hint.text), hint.id
        assert "\n" not in hint.text_zh and len(hint.text_zh) < 300, hint.id
        # a line folded in the YAML would put a space between two Chinese characters
        assert not re.search(r"[\u4e00-\u9fff\uff00-\uffef] [\u4e00-\u9fff\uff00-\uffef]", hint.text_zh), hint.id
        assert (hint.in_language("zh-CN"), hint.in_language("en")) == (hint.text_zh, hint.text)


def test_a_hint_without_its_chinese_line_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"hints\.yaml: the hint 'x' has no text_zh"):
        _line({"id": "x", "text": "a hint"}, "text_zh")


def test_the_sample_block_of_the_chinese_readme_uses_the_current_wording() -> None:
    readme = (REPO / "README.zh-CN.md").read_text(encoding="utf-8").splitlines()
    hint = next(h for h in hints() if h.id == "utf16-units")
    assert f"    提示  {hint.text_zh}" in readme
    assert '            [0] user "😀"（U+1F600；1 个码点，2 个 UTF-16 码元）' in readme


def test_an_interrupted_run_in_chinese_keeps_the_stable_token() -> None:
    run = dataclasses.replace(make_run(), interrupted="SIGINT")
    english = render_summary(run, color=False, verbose=False).splitlines()
    chinese = render_summary(run, color=False, verbose=False, language="zh-CN").splitlines()
    assert english[0] == "ccweb_list_user_inputs conformance: INTERRUPTED"
    assert chinese[0] == "ccweb_list_user_inputs 一致性测试：INTERRUPTED（已中断）"
    assert english[-1].startswith("INTERRUPTED: ")
    assert chinese[-1].startswith("INTERRUPTED（已中断）：通过 ")
    assert chinese[2] == "已中断（SIGINT）：0 个场景未运行"
