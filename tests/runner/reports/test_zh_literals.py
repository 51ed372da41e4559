# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""Chinese lines hold no English or Python literals and no needless code points (issue 35, 9); one path style."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner.reports.mutant_console import block, console

from ccweb_conformance.checks.description_check import FactVerdict
from ccweb_conformance.checks.failures import fail
from ccweb_conformance.checks.ledger import MAX_NAMED, Audit
from ccweb_conformance.checks.watch import FOLDER_TIME, Seen
from ccweb_conformance.fixtures.stored import read_stored
from ccweb_conformance.i18n import messages, phrase, translated
from ccweb_conformance.reports.failure_block import _content, _pair, notable, rooted, value

ZH = messages("zh-CN")


@pytest.mark.parametrize(("text", "shown"), [
    ("旧的输入", '"旧的输入"'),  # ordinary Chinese: no U+ annotation
    ("，：（）", '"，：（）"'),  # full-width punctuation is ordinary too
    ("café", '"café"'),
    ("😀", '"😀"（U+1F600）'),  # astral: counts 1, UTF-16 makes it 2
    ("a\u200bb", '"a\u200bb"（U+200B）'),  # invisible
    ("１５", '"１５"（U+FF11 U+FF15）'),  # looks like ASCII digits
    ("e\u0301", '"e\u0301"（U+0301）'),  # a combining mark
])
def test_code_points_only_where_a_reader_needs_them(text: str, shown: str) -> None:
    assert value(text, ZH) == shown


def test_a_stored_chinese_message_has_no_code_points() -> None:
    assert _content("请把旧的输入列出来", ZH) == '"请把旧的输入列出来"（9 个码点）'


@pytest.mark.parametrize("char", ["中", "，", "é", "A"])
def test_ordinary_characters_are_not_notable(char: str) -> None:
    assert not notable(char)


def test_an_expected_description_is_shown_as_words_not_as_a_json_string() -> None:
    expected, got, at = _pair('structuredContent or a text block holding {"ok": ...}', {"content": []}, 200, "zh-CN")
    assert (expected, got, at) == ('structuredContent，或内容为 {"ok": ...} 的文本块', '{"content": []}', None)
    english = _pair('structuredContent or a text block holding {"ok": ...}', {}, 200, "en")[0]
    assert english == 'structuredContent or a text block holding {"ok": ...}'  # no escaped quotes either


def test_a_file_that_is_not_json_is_named_in_hex_and_in_chinese(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf{}")
    messages_, note = read_stored(path)
    assert (messages_, note) == (None, "not JSON in UTF-8, its bytes EF BB BF EF BB BF 7B 7D")
    assert translated(note, "zh-CN") == "不是 UTF-8 编码的 JSON，字节为 EF BB BF EF BB BF 7B 7D"
    assert translated("a directory", "zh-CN") == "一个目录"


@pytest.mark.parametrize(("path", "at", "rooted_path"), [
    ("$[0].contentChars", "$.items", "$.items[0].contentChars"),
    ("$[2]", "$.items[].content", "$.items[2].content"),
    ("$", "$.items", "$.items"),
    ("$.returnedCount", "$", "$.returnedCount"),
])
def test_paths_are_named_from_the_results_root(path: str, at: str, rooted_path: str) -> None:
    assert rooted(path, at) == rooted_path


@pytest.mark.parametrize(("seen", "english", "chinese"), [
    (Seen("a.json.lock", ("created", "removed")), "a.json.lock (created, removed)", "a.json.lock（新建、删除）"),
    (Seen("x-run/t", ("created", "changed", "removed")), "x-run/t (created, changed, removed)",
     "x-run/t（新建、改动、删除）"),
    (Seen(".", (FOLDER_TIME,)), "an entry created or removed in the sessions directory (its modification time moved)",
     "会话目录中有条目被新建或删除（其修改时间变了）"),
    (Seen("x-run", (FOLDER_TIME,)), 'an entry created or removed in the folder "x-run" (its modification time moved)',
     '文件夹 "x-run" 中有条目被新建或删除（其修改时间变了）'),
])  # fmt: skip
def test_what_the_watcher_saw_is_worded_in_each_language(seen: Seen, english: str, chinese: str) -> None:
    assert (messages("en").words(seen.phrase), ZH.words(seen.phrase), str(seen)) == (english, chinese, english)


def test_the_entries_a_watcher_saw_are_words_in_the_block_not_a_json_list() -> None:
    seen = [Seen("a.json.lock", ("created", "removed")).phrase, Seen("b.tmp", ("created",)).phrase]
    expected = "no entry but the runner's own, not even one that exists only during a call"
    assert _pair(expected, seen, 200, "zh-CN") == (
        "除运行器自己的条目外没有任何条目，只在调用期间存在的也不行", "a.json.lock（新建、删除）、b.tmp（新建）", None
    )
    assert _pair(expected, seen, 200, "en")[1] == "a.json.lock (created, removed), b.tmp (created)"
    failure = fail("RO-2: entries were created", expected=expected, actual=seen)
    assert str(failure).splitlines()[2] == "  actual:   a.json.lock (created, removed), b.tmp (created)"


@pytest.mark.slow
def test_a_transient_lock_file_in_chinese_has_no_english_words() -> None:
    lines = console("transient_lock_file", "--lang", "zh-CN", "--tags", "RO-2", "--fuzz", "0")
    head = "FAIL ac09_read_only.feature::A file of an older shape is read, never migrated"
    shown = block(lines, head)
    assert shown[2:4] == [
        "    检查  RO-2：调用期间会话目录中有条目被新建、改动或删除（通过 inotify 观察到）",
        "    期望  除运行器自己的条目外没有任何条目，只在调用期间存在的也不行",
    ]
    assert shown[4] == "    实际  UUID.json.lock（新建、删除）"


def test_a_sentence_is_translated_whole_not_by_a_shorter_sentence_it_starts_with() -> None:
    english = 'expected the error X for every row; rows 3 were answered otherwise (row 3: "\\xef")'
    assert translated(english, "zh-CN") == '每一行都应返回错误 X；第 3 行的回答不是（第 3 行："\\xef"）'


@pytest.mark.parametrize(
    ("when", "chinese"), [("before the snapshot", "在记录快照之前"), ("after the calls", "在调用之后")]
)
def test_when_the_directory_was_audited_is_said_in_chinese(when: str, chinese: str) -> None:
    english = (f"RO-2: the sessions directory holds entries the runner did not write ({when}); "
               "something the server did earlier in the run changed it")
    assert translated(english, "zh-CN") == (
        f"RO-2：会话目录里出现了运行器没有写过的条目（{chinese}）；是服务端在本次运行中较早时做的改动"
    )


def test_an_audit_is_worded_in_each_language() -> None:
    audit = Audit(tuple(f"e{n}" for n in range(MAX_NAMED + 2)), ("gone.json",), ())
    assert ZH.words(audit.phrases()) == (
        f"只可能是服务端写入的条目：{'、'.join(f'e{n}' for n in range(MAX_NAMED))}，另有 2 个、消失了的条目：gone.json"
    )
    assert audit.describe().splitlines() == [
        f"entries nobody but the server can have written: {', '.join(f'e{n}' for n in range(MAX_NAMED))} and 2 more",
        "entries that disappeared: gone.json",
    ]


BUDGET = ("total budget of 1,000 characters", "合计不超过 1000 个字符")


@pytest.mark.parametrize(("verdict", "english", "chinese"), [
    (FactVerdict("F-3", BUDGET[0], False, None, ("1,000", "total"), None, BUDGET[1], ("1000", "合计")),
     '"total budget of 1,000 characters" (no clause mentions any of: 1,000, total)',
     "“合计不超过 1000 个字符”（没有子句提到以下任一概念：1000、合计）"),
    (FactVerdict("F-3", BUDGET[0], False, "At most 1,000", ("total",), None, BUDGET[1], ("合计",)),
     '"total budget of 1,000 characters" (the closest clause "At most 1,000" lacks: total)',
     "“合计不超过 1000 个字符”（最接近的子句“At most 1,000”缺少：合计）"),
    (FactVerdict("F-3", BUDGET[0], False, "1,000 per item", (), "per item", BUDGET[1], (), "per item", "每条"),
     '"total budget of 1,000 characters" (the closest clause "1,000 per item" is contradicted by "per item": per item)',
     "“合计不超过 1000 个字符”（最接近的子句“1,000 per item”中有相反的说法“per item”：每条）"),
])  # fmt: skip
def test_an_unmet_fact_is_worded_in_each_language(verdict: FactVerdict, english: str, chinese: str) -> None:
    assert (str(verdict.phrase), ZH.words(verdict.phrase)) == (english, chinese)


def test_the_facts_a_description_lacks_are_the_expected_value_in_words() -> None:
    verdict = FactVerdict("F-3", BUDGET[0], False, None, ("total",), None, BUDGET[1], ("合计",))
    expected = phrase("fact.every", facts=(verdict.phrase,))
    shown = _pair(expected, "Returns inputs.", 200, "zh-CN")
    assert shown == (
        "全部事实；未写明：“合计不超过 1000 个字符”（没有子句提到以下任一概念：合计）", '"Returns inputs."', None
    )


def test_a_list_of_row_numbers_is_joined_as_chinese_joins_it() -> None:
    english = 'expected the error invalid_arguments for every row; rows 8, 12 were answered otherwise (row 8: "a, b")'
    chinese = "每一行都应返回错误 invalid_arguments；第 8、12 行的回答不是（第 8 行：\"a, b\"）"
    assert translated(english, "zh-CN") == chinese
    assert translated(english, "en") == english  # English keeps its commas


def test_schema_violations_are_worded_in_chinese_each_one() -> None:
    english = (
        "PROTO-1: a message received breaks JSON-RPC 2.0 or the MCP schema: tools/call result: content: Input should be"
        ' a valid list; JSON-RPC envelope: id: the reply must echo the request id 1, got "1"'
    )
    assert translated(english, "zh-CN") == (
        "PROTO-1：收到的消息不符合 JSON-RPC 2.0 或 MCP schema：tools/call 的结果：content：应为数组；"
        'JSON-RPC 信封：id：回复必须原样带回请求的 id 1，实际是 "1"'
    )
    assert translated(english, "en") == english
