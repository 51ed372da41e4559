# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""Lines cut to the terminal's width at spaces (and between CJK characters), never inside a word; commands cut
between shell words with `` \\`` continuations; the live counter's text."""

from __future__ import annotations

import io
import shlex

import pytest

from ccweb_conformance.reports.live import LiveCounter
from ccweb_conformance.reports.model import ScenarioResult
from ccweb_conformance.reports.terminal import fit_to_terminal
from ccweb_conformance.suite.progress import Progress
from ccweb_conformance.textwidth import display_width, wrap_line


def test_a_labelled_line_continues_at_its_value_column():
    line = "    hint      the server counts UTF-16 code units, not code points: a character outside the BMP counts two"
    assert wrap_line(line, 80) == [
        "    hint      the server counts UTF-16 code units, not code points: a character",
        "              outside the BMP counts two",
    ]


def test_a_short_line_is_left_alone():
    assert wrap_line("  PASS    TOOL-1 TOOL-2", 80) == ["  PASS    TOOL-1 TOOL-2"]


def test_chinese_breaks_between_characters_never_before_closing_punctuation():
    line = ("    提示  长度看起来是按 UTF-16 码元计算的：BMP 以外的字符算了两个；请用 Array.from(text).length 计数，"
            "每个字符算一个码位")
    wrapped = wrap_line(line, 40)
    assert wrapped == [
        "    提示  长度看起来是按 UTF-16 码元计算",
        "          的：BMP 以外的字符算了两个；请",
        "          用 Array.from(text).length 计",
        "          数，每个字符算一个码位",
    ]
    assert all(display_width(piece) <= 40 for piece in wrapped)
    assert not any(piece.lstrip().startswith(("，", "：", "；")) for piece in wrapped)


def test_an_emoji_sequence_and_colour_codes_stay_whole():
    line = "\x1b[31mFAIL\x1b[0m " + "word " * 12 + '"👨\u200d👩" end'
    wrapped = wrap_line(line, 40)
    assert wrapped[0] == "\x1b[31mFAIL\x1b[0m word word word word word word word"  # the colour takes no column
    assert '"👨\u200d👩"' in "".join(wrapped)


def test_a_word_wider_than_the_line_is_left_whole():
    assert wrap_line("  see " + "x" * 50, 30) == ["  see", "    " + "x" * 50]


LONG_PATH = "/home/ci/work/a-rather-long-project-name/node_modules/.bin/the-server-under-test.js"


def test_a_too_wide_first_value_stays_beside_its_label_and_the_next_word_starts_a_line():
    # as pytest leaves it: whole, soft-wrapped by the terminal; a label alone on a line would say nothing
    assert wrap_line(f"    got          {LONG_PATH} and more words", 60) == [
        f"    got          {LONG_PATH}",
        "                 and more words",
    ]
    assert wrap_line(f"    提示  请检查 {LONG_PATH} 是否存在", 60) == [
        "    提示  请检查",
        f"          {LONG_PATH}",
        "          是否存在",
    ]


def test_a_too_wide_shell_word_is_a_line_of_its_own_and_the_command_still_pastes():
    line = f"    rerun        ccweb-conformance run --stdio 'node {LONG_PATH}' -k test_x"
    wrapped = wrap_line(line, 60)
    assert wrapped == [
        "    rerun        ccweb-conformance run --stdio \\",
        f"                 'node {LONG_PATH}' \\",
        "                 -k test_x",
    ]
    joined = " ".join(piece.removesuffix(" \\").strip() for piece in wrapped).removeprefix("rerun ")
    assert shlex.split(joined) == shlex.split(line)[1:]


def test_a_command_is_cut_between_shell_words_and_stays_one_command():
    line = ("    rerun     ccweb-conformance run --stdio 'node my server.js' --sessions-dir ./sessions "
            "-k 'emoji and not zwj'")
    wrapped = wrap_line(line, 50)
    assert wrapped == [
        "    rerun     ccweb-conformance run --stdio \\",
        "              'node my server.js' --sessions-dir \\",
        "              ./sessions -k 'emoji and not zwj'",
    ]
    joined = " ".join(piece.removesuffix(" \\").strip() for piece in wrapped).removeprefix("rerun ")
    assert shlex.split(joined) == shlex.split(line)[1:]


def test_only_a_terminal_is_wrapped():
    text = "word " * 40
    assert fit_to_terminal(text, io.StringIO()) == text


@pytest.mark.parametrize(("done", "failed", "text"), [
    (0, 0, "0/225 scenarios"), (12, 0, "12/225 scenarios"), (12, 2, "12/225 scenarios, 2 failed"),
])
def test_the_counter_says_the_failures(done, failed, text):
    counter = LiveCounter("scenarios", live=True, stream=io.StringIO())
    counter.restart(225)
    assert counter.text(done, failed) == text


def test_a_terminal_counter_rewrites_its_line_and_ends_it():
    out = io.StringIO()
    counter = LiveCounter("fuzz calls", live=True, stream=out)
    counter.restart(3)
    for done in (1, 2, 3):
        counter.update(done, 1 if done == 3 else 0)
    counter.finish()
    assert out.getvalue() == "\r  1/3 fuzz calls\r  2/3 fuzz calls\r  3/3 fuzz calls, 1 failed\n"


def test_a_log_counter_writes_a_line_every_tenth_and_at_the_end():
    out = io.StringIO()
    counter = LiveCounter("scenarios", live=False, stream=out)
    counter.restart(25)
    for done in range(1, 26):
        counter.update(done, 1 if done > 10 else 0)
    counter.finish()
    assert out.getvalue().splitlines() == [
        *(f"ccweb-conformance: {n}/25 scenarios" for n in (2, 4, 6, 8, 10)),
        *(f"ccweb-conformance: {n}/25 scenarios, 1 failed" for n in (12, 14, 16, 18, 20, 22, 24, 25)),
    ]


class _Writes(io.StringIO):
    """A stream that keeps each write apart: a signal handled between two writes could leave a line open."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def test_a_progress_line_is_one_write_with_its_newline(monkeypatch: pytest.MonkeyPatch):
    out = _Writes()
    monkeypatch.setattr("sys.stderr", out)
    verbose = Progress(verbose=True, live=False)
    result = ScenarioResult("A", "a.feature", "s", 3, (), (), "MUST", status="passed")
    verbose.ended(result)
    counter = LiveCounter("scenarios", live=False, stream=out)
    counter.restart(1)
    counter.update(1)
    assert out.writes == ["PASSED   a.feature::s\n", "ccweb-conformance: 1/1 scenarios\n"]
