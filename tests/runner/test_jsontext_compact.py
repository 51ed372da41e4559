"""``jsontext.compact``: the text the runner sends, compact, raw UTF-8, every lone surrogate escaped."""

from __future__ import annotations

import json

from ccweb_conformance.jsontext import compact


def test_compact_text_keeps_non_ascii_raw_and_has_no_spaces() -> None:
    assert compact({"a": [1, "用户 🙂"], "b": None}) == '{"a":[1,"用户 🙂"],"b":null}'


def test_a_lone_surrogate_is_written_as_an_escape_and_reads_back_the_same() -> None:
    value = {"text": "a\ud800b\udfff"}
    text = compact(value)
    assert text == '{"text":"a\\ud800b\\udfff"}'
    assert text.encode("utf-8") == b'{"text":"a\\ud800b\\udfff"}'
    assert json.loads(text) == value


def test_a_surrogate_pair_escape_from_json_stays_one_character() -> None:
    assert compact(["\U0001f642"]) == '["\U0001f642"]'
