# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""Chinese lines hold no English or Python literals and no needless code points (issue 35, 9); one path style."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccweb_conformance.fixtures.stored import read_stored
from ccweb_conformance.i18n import messages, translated
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
