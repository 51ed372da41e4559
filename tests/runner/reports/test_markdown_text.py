"""The one Markdown escaper: reports, the profile's summary and the living spec all use it."""

from __future__ import annotations

from ccweb_conformance.reports.markdown_text import cell, code, one_line, table


def test_a_cell_is_one_line_with_pipes_and_html_outside_code_escaped():
    assert cell("a |b\n\tc  <script>") == "a \\|b c \\<script>"
    assert cell("`<T>` and <T>") == "`<T>` and \\<T>"
    assert one_line(" x \r\n y ") == "x y"


def test_inline_code_gets_a_fence_longer_than_its_backticks():
    assert code("f(x)") == "`f(x)`"
    assert code("a``b") == "```a``b```"
    assert code("`edge") == "`` `edge ``"
    assert code("a|b") == "`a\\|b`"


def test_a_table_escapes_its_cells_unless_told_not_to():
    assert table(["k", "v"], [["a|b", "<i>"]]) == ["| k | v |", "|---|---|", "| a\\|b | \\<i> |"]
    assert table(["k"], [["<br>"]], escape=False) == ["| k |", "|---|", "| <br> |"]
