"""Why the kit keeps its own SSE parser: what httpx-sse 0.4.3 gets wrong or hides, on the same bytes.

ARCHITECTURE.md ("Raw wire"): the runner must see exactly what the server sent. httpx-sse parses the
text httpx decoded; the kit's parser (``transport/sse.py``) reads the bytes. Each case below is
one stream, read by both; the test fails if httpx-sse starts to see what the kit sees (then the
comment in ``transport/sse.py`` and this test should be revisited).
"""

from __future__ import annotations

import httpx
import pytest

from ccweb_conformance.transport.channel import MessageTooLarge
from ccweb_conformance.transport.sse import iter_events, split_lines

httpx_sse = pytest.importorskip("httpx_sse", reason="httpx-sse is a dev extra (pip install -e '.[dev]')")

Event = tuple[str, str, str | None]


def by_httpx_sse(body: bytes, content_type: str = "text/event-stream") -> list[Event]:
    response = httpx.Response(200, headers={"content-type": content_type}, content=body)
    return [(e.event, e.data, e.id or None) for e in httpx_sse.EventSource(response).iter_sse()]


def by_the_kit(body: bytes, limit: int | None = None) -> tuple[list[Event], list[str]]:
    problems: list[str] = []
    events = [(e.event, e.data, e.id) for e in iter_events(split_lines([body], limit, problems.append), limit)]
    return events, problems


def test_a_leading_byte_order_mark_loses_the_first_event_in_httpx_sse() -> None:
    body = b'\xef\xbb\xbfdata: {"jsonrpc": "2.0", "id": 1, "result": {}}\n\n'
    assert by_httpx_sse(body) == []
    assert by_the_kit(body) == ([("message", '{"jsonrpc": "2.0", "id": 1, "result": {}}', None)], [])


def test_bytes_that_are_not_utf8_are_replaced_silently_by_httpx_sse() -> None:
    body = b'data: {"text": "caf\xe9"}\n\n'
    assert by_httpx_sse(body) == [("message", '{"text": "caf\ufffd"}', None)]
    assert by_the_kit(body) == (
        [("message", '{"text": "caf\ufffd"}', None)],
        ["an SSE line is not valid UTF-8 (bytes e9 at offset 19)"],
    )


def test_a_declared_latin1_charset_makes_invalid_bytes_look_valid_in_httpx_sse() -> None:
    body = b'data: {"text": "caf\xe9"}\n\n'
    assert by_httpx_sse(body, "text/event-stream; charset=iso-8859-1") == [("message", '{"text": "café"}', None)]
    assert by_the_kit(body)[1] == ["an SSE line is not valid UTF-8 (bytes e9 at offset 19)"]


def test_blank_lines_after_an_id_are_empty_events_in_httpx_sse() -> None:
    body = b'id: 7\ndata: {"a": 1}\n\n\n\ndata: {"b": 2}\n\n'
    assert by_httpx_sse(body) == [
        ("message", '{"a": 1}', "7"),
        ("message", "", "7"),
        ("message", "", "7"),
        ("message", '{"b": 2}', "7"),
    ]
    assert by_the_kit(body) == ([("message", '{"a": 1}', "7"), ("message", '{"b": 2}', "7")], [])


def test_a_line_past_the_message_limit_is_refused_by_the_kit_and_read_whole_by_httpx_sse() -> None:
    body = b"data: " + b"x" * 5000 + b"\n\n"
    assert by_httpx_sse(body) == [("message", "x" * 5000, None)]
    with pytest.raises(MessageTooLarge):
        by_the_kit(body, limit=1000)


def test_both_split_lines_only_at_cr_and_lf_now() -> None:
    """What no longer differs (httpx-sse 0.4.x): U+2028 inside a JSON string does not end a line."""
    body = 'data: {"text": "a\u2028b\u0085c"}\r\n\r\n'.encode()
    expected = [("message", '{"text": "a\u2028b\u0085c"}', None)]
    assert by_httpx_sse(body) == expected
    assert by_the_kit(body) == (expected, [])
