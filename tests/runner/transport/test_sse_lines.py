"""The SSE line splitter ends lines only at CRLF, CR or LF (not at U+0085, U+2028, U+2029)."""

from ccweb_conformance.transport.sse import iter_events, split_lines


def test_unicode_line_separators_stay_inside_a_line():
    assert list(split_lines(['data: "a\x85b\u2028c\u2029d"\n'.encode(), b"\n"])) == ['data: "a\x85b\u2028c\u2029d"', ""]


def test_crlf_split_across_chunks_is_one_line_end():
    assert list(split_lines([b"data: 1\r", b"\n\r\n", b"data: 2\r\r"])) == ["data: 1", "", "data: 2", ""]


def test_a_last_line_without_its_end_is_kept():
    assert list(split_lines([b"data: 1\n", b"data: 2"])) == ["data: 1", "data: 2"]


def test_an_event_whose_json_holds_a_next_line_character_is_parsed_whole():
    events = list(iter_events(split_lines(['data: {"t": "x\x85y"}\n\n'.encode()])))
    assert [(e.event, e.data) for e in events] == [("message", '{"t": "x\x85y"}')]


def test_one_leading_byte_order_mark_is_dropped_as_the_standard_says():
    assert list(split_lines([b"\xef\xbb\xbfdata: 1\n", b"\xef\xbb\xbfdata: 2\n"])) == ["data: 1", "\ufeffdata: 2"]
    assert list(split_lines([b"", b"\xef\xbb\xbfdata: 1\n"])) == ["data: 1"]
