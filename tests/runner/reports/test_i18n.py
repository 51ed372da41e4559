# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The runner's two languages: messages, language choice, display width, Chinese reports."""

from __future__ import annotations

import dataclasses
import re
import string
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from paths import REPO
from runner.reports.report_schema import report_schema
from runner.reports.sample_run import make_run
from runner.reports.test_failure_block_zh import a_failure

import ccweb_spec
from ccweb_conformance.cli import main
from ccweb_conformance.i18n import LANGUAGES, locale_messages, messages, pick_language
from ccweb_conformance.reports.common import totals_line
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.json_report import build_json
from ccweb_conformance.reports.junit import build_junit
from ccweb_conformance.reports.markdown import render_markdown
from ccweb_conformance.textwidth import char_width, display_width, ljust, rjust
from ccweb_spec import yaml_data

SAME_IN_BOTH = {  # keys whose text is language-neutral: stable tokens, IDs, layout only
    "verdict.passed", "verdict.failed", "verdict.warning", "verdict.xfailed", "verdict.run_passed",
    "verdict.run_failed", "console.group_heading", "console.passed_line", "console.scenario_line", "spec.col.id",
    "spec.col.prd", "block.source_bound", "block.message_line", "fuzz.failed",
}  # fmt: skip
MAY_DROP = {"spec.requirements.section": {"en"}}
"""Placeholders a translation may leave out: the English gloss of a PRD section heading."""


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


# --- messages --------------------------------------------------------------------------


KIT_YAML = sorted((REPO / "conformance" / "ccweb_conformance").rglob("*.yaml"))


@pytest.mark.parametrize("path", KIT_YAML, ids=lambda path: path.name)
def test_the_fast_yaml_reader_gives_the_pure_python_safe_loader_s_data(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert yaml_data(text) == yaml.load(text, Loader=yaml.SafeLoader)


def test_the_fast_yaml_reader_is_safe() -> None:
    with pytest.raises(yaml.YAMLError):
        yaml_data("!!python/object/apply:os.system ['true']")


def test_both_languages_have_the_same_message_keys() -> None:
    assert sorted(locale_messages("zh-CN")) == sorted(locale_messages("en"))


@pytest.mark.parametrize("key", sorted(locale_messages("en")))
def test_a_translation_keeps_every_placeholder_and_differs_unless_neutral(key: str) -> None:
    english, chinese = locale_messages("en")[key], locale_messages("zh-CN")[key]
    assert fields(english) - MAY_DROP.get(key, set()) <= fields(chinese), key
    assert isinstance(chinese, str) and chinese.strip(), key
    assert (chinese == english) == (key in SAME_IN_BOTH), key


def test_verdict_tokens_are_stable_in_every_language() -> None:
    for language in LANGUAGES:
        say = messages(language)
        words = [say(f"verdict.{s}") for s in ("passed", "failed", "warning", "xfailed")]
        assert words == ["PASS", "FAIL", "WARN", "XFAIL"]
        assert (say("verdict.run_passed"), say("verdict.run_failed")) == ("PASSED", "FAILED")


def test_an_unknown_key_or_language_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="no message 'nope' in the zh-CN messages"):
        messages("zh-CN")("nope")
    with pytest.raises(KeyError, match=r"message 'totals.passed' \(en\) needs the field 'n'"):
        messages("en")("totals.passed")
    with pytest.raises(ValueError, match="unknown language 'fr'; known: en, zh-CN"):
        messages("fr")


# --- choosing the language -----------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "environ", "expected"),
    [
        (None, {}, "en"),
        (None, {"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        (None, {"LANG": "zh_TW.UTF-8"}, "zh-CN"),
        (None, {"LANG": "en_US.UTF-8"}, "en"),
        (None, {"LANG": "C.UTF-8"}, "en"),
        (None, {"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"),
        (None, {"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LC_ALL": "", "LANG": "zh_CN.UTF-8"}, "zh-CN"),  # empty means unset
        ("en", {"LC_ALL": "zh_CN.UTF-8"}, "en"),
        ("zh-CN", {"LANG": "en_US.UTF-8"}, "zh-CN"),
    ],
)
def test_pick_language(option: str | None, environ: dict[str, str], expected: str) -> None:
    assert pick_language(option, environ) == expected


def test_run_rejects_an_unknown_language(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--lang", "fr"]) == 2
    error = capsys.readouterr().err
    expected = r"ccweb-conformance: error: argument --lang: invalid choice: 'fr' \(choose from '?en'?, '?zh-CN'?\)\n"
    assert re.fullmatch(expected, error)


# --- display width ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("", 0),
        ("PASS", 4),
        ("未测试", 6),
        ("会话 ID", 7),
        ("ｆｕｌｌ", 8),  # fullwidth Latin
        ("（）：；", 8),
        ("e\u0301", 1),  # combining acute accent
        ("a\u200db", 2),  # zero-width joiner
        ("😀", 2),
        ("½", 1),  # East Asian ambiguous counts 1
    ],
)
def test_display_width(text: str, width: int) -> None:
    assert display_width(text) == width


def test_char_width() -> None:
    assert [char_width(c) for c in "a中\u0300ア"] == [1, 2, 0, 2]


def test_padding_counts_columns_not_code_points() -> None:
    assert ljust("未测试", 8) == "未测试  "
    assert ljust("PASS", 8) == "PASS    "
    assert rjust("中文", 6) == "  中文"
    assert ljust("中文中文", 4) == "中文中文"  # already wider: unchanged
    assert display_width(ljust("e\u0301", 3)) == 3


# --- reports in Chinese ----------------------------------------------------------------

REQUIREMENT_LINE = re.compile(r"^  (\S+) +([A-Z]+-\d+) +(MUST|SHOULD)(?: +(.*))?$")


def test_chinese_console_summary() -> None:
    text = render_summary(make_run(), color=False, verbose=False, language="zh-CN")
    lines = text.splitlines()
    assert lines[0] == "ccweb_list_user_inputs 一致性测试：FAILED"
    assert lines[1] == "被测对象：stdio: node server.js（stdio，协议 2025-06-18，spec 1.0.0，kit 0.1.0）"
    assert lines[-1] == "通过 1，失败 1，警告 1，预期失败 1，意外通过 1，跳过 1，用时 3.21 秒"
    assert "AC-7  BMP 以外的字符计为一个码点" in lines
    assert (
        "  PASS    TOOL-1    MUST    tools/list 的结果中包含名为 ccweb_list_user_inputs 的工具，"
        "且在所有分页中（客户端沿 nextCursor 翻页）恰好出现一次。" not in lines
    )
    assert "  PASS    TOOL-1" in lines  # compact: a passing requirement is its ID on its criterion's PASS line
    assert "  未测试  TOOL-5    SHOULD  " + ccweb_spec.requirements()[4].statement_zh in lines
    assert "      XPASS ac07_unicode.feature::A flag counts as two：预期失败的场景却通过了：flags are broken" in lines


def test_chinese_console_columns_line_up_by_display_width() -> None:
    lines = render_summary(make_run(), color=False, verbose=True, language="zh-CN").splitlines()
    rows = [line for line in lines if REQUIREMENT_LINE.match(line)]
    assert len(rows) == len(ccweb_spec.requirements())
    starts = {tuple(display_width(line[: line.index(part)]) for part in line.split()[1:4]) for line in rows}
    assert starts == {(10, 20, 28)}  # ID, level and statement start at the same columns on every line


def test_english_console_is_unchanged_by_the_chinese_messages() -> None:
    lines = render_summary(make_run(), color=False, verbose=False).splitlines()
    assert "  untested  TOOL-5    SHOULD" in lines
    assert lines[-1] == "1 passed, 1 failed, 1 warning, 1 xfailed, 1 xpassed, 1 skipped in 3.21s"


def test_chinese_totals_line() -> None:
    run = make_run()
    run.scenarios, run.duration_s = run.scenarios[:1], 0.5
    assert totals_line(run, messages("zh-CN")) == "通过 1，失败 0，用时 0.50 秒"


def test_chinese_markdown_report() -> None:
    text = render_markdown(make_run(), "zh-CN")
    lines = text.splitlines()
    assert lines[0] == "## ccweb_list_user_inputs 一致性测试：❌ 未通过"
    assert "**场景：** 通过 1，失败 1，警告 1，预期失败 1，意外通过 1，跳过 1，用时 3.21 秒" in lines
    assert "### AC-3：默认返回最新的 15 条用户输入，先旧后新" in lines
    index = lines.index("| 需求 | 级别 | 结论 | 场景数 | 内容 |")
    assert lines[index + 1] == "|---|---|---|---|---|"
    assert "| SEL-6 | MUST | ❌ FAIL | 1 | 只考虑最后 limit 条候选消息；使用默认值时就是最新的 15 条。 |" in lines
    assert "| TOOL-5 | SHOULD | ⚪ 未测试 | 0 | " + ccweb_spec.requirements()[4].statement_zh + " |" in lines
    assert {"### 失败", "### 警告", "### 预期失败"} <= set(lines)


def test_json_report_carries_the_chinese_statement() -> None:
    report = build_json(make_run())
    by_id = {r["id"]: r for r in report["requirements"]}
    assert by_id["UNI-1"]["statementZh"] == (
        "长度按 Unicode 码点计算：BMP 以外的字符（如 emoji）计为 1，截断时也不会被拆成两个 UTF-16 代理项。"
    )
    assert report_schema()["$defs"]["requirement"]["properties"]["statementZh"]["type"] == "string"
    assert report["formatVersion"] == "1.6.0"


def test_junit_in_chinese_says_the_failure_and_the_statement_in_chinese_and_has_no_statement_rows() -> None:
    """The Chinese statements were 73 property rows on every suite (in an English report too); the failure
    block of a Chinese report carries the statement of the requirement that failed."""
    failing = make_run()
    failing.scenarios[1] = dataclasses.replace(a_failure(scenario="S1"), feature_file="ac03_latest_fifteen.feature")
    root = build_junit(failing, "zh-CN")
    assert not [p for p in root.iter("property") if p.get("name") == "statement_zh"]
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == 'UNI-2: items 不同: $：应有 2 个元素，实际有 1 个：[{"content": "a"}]'
    statement = next(r for r in ccweb_spec.requirements() if r.id == "UNI-2").statement_zh
    assert (failure.text or "").splitlines()[1] == f"    需求  UNI-2（MUST）：{statement}"
    assert not [p for p in build_junit(make_run()).iter("property") if p.get("name") == "statement_zh"]
    ET.tostring(root)  # still serialisable
