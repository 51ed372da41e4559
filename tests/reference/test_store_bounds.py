"""A call's memory is bounded: the largest file read, and no whole-file text copy for what is not an object."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccweb_reference import store as store_module
from ccweb_reference.cli import main
from ccweb_reference.core import ToolError
from ccweb_reference.store import DEFAULT_MAX_FILE_BYTES, SessionStore, parse_conversation
from ccweb_reference.tool import call_tool

SMALL = b'{"messages": [{"role": "user", "content": "hi"}]}'


def test_the_default_bound_is_128_mib() -> None:
    assert DEFAULT_MAX_FILE_BYTES == 134_217_728
    assert SessionStore(Path()).max_file_bytes == DEFAULT_MAX_FILE_BYTES


def test_the_default_read_budget_is_256_mib_and_shown_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    from ccweb_reference.cli import parse_args  # noqa: PLC0415

    assert SessionStore(Path()).read_budget.limit == 268_435_456
    assert parse_args(["--read-budget-bytes", "1000"]).read_budget_bytes == 1000
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    assert "(files under 1,048,576 bytes are not counted; default: 268435456)" in " ".join(
        capsys.readouterr().out.split()
    )


def test_a_file_at_the_bound_is_read_and_one_byte_more_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "at.json").write_bytes(SMALL)
    (tmp_path / "over.json").write_bytes(SMALL + b" ")
    store = SessionStore(tmp_path, max_file_bytes=len(SMALL))
    assert call_tool(store, {"conversationId": "at"}, None)[0]["totalChars"] == 2
    result, is_error = call_tool(store, {"conversationId": "over"}, None)
    assert is_error is True
    assert result["error"] == {
        "code": "conversation_unreadable",
        "message": "the conversation file is larger than this server reads (50 bytes; the bound is 49,"
        " set by ccweb-reference --max-file-bytes)",
    }


def test_a_sparse_gigabyte_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(1 << 30)  # sparse: costs no disk
    try:
        with pytest.raises(ToolError) as caught:
            SessionStore(tmp_path).read_bytes("big")
    finally:
        path.unlink()
    assert caught.value.code == "conversation_unreadable"
    assert "1,073,741,824 bytes; the bound is 134,217,728" in caught.value.message


@pytest.mark.parametrize("data", [b'"' + b"x" * 100_000 + b'"', b"  \n[" + b"1," * 50_000 + b"1]", b"\xef\xbb\xbf7"])
def test_a_document_that_is_not_an_object_is_never_decoded_to_text(
    monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    def fail(_data: bytes) -> None:
        raise AssertionError("decoded to text")

    monkeypatch.setattr(store_module, "generic_document", fail)
    with pytest.raises(ToolError) as caught:
        parse_conversation(data)
    assert (caught.value.code, caught.value.message) == (
        "conversation_unreadable",
        "the conversation file does not hold a JSON object",
    )


def test_invalid_utf8_is_answered_without_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "generic_document", lambda _data: pytest.fail("decoded to text"))
    with pytest.raises(ToolError) as caught:
        parse_conversation(b'{"messages": [], "x": "\xff"}')
    assert (caught.value.code, caught.value.message) == (
        "conversation_unreadable",
        "the conversation file is not valid UTF-8",
    )


@pytest.mark.parametrize("value", ["0", "-1", "x", "inf"])
def test_max_file_bytes_must_be_a_positive_number(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["--sessions-dir", ".", "--max-file-bytes", value])
    assert caught.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith("ccweb-reference: error: argument --max-file-bytes: ")


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b'{"messages": [{"content": "a\x00b"}]}', "invalid character (byte 28)"),
        (b'{"messages": [], "x": NaN}', "invalid character (byte 22)"),
        (b'{"messages": []} trailing', "trailing characters (byte 18)"),
    ],
)
def test_bytes_no_json_reader_takes_are_answered_without_decoding(
    monkeypatch: pytest.MonkeyPatch, data: bytes, why: str
) -> None:
    monkeypatch.setattr(store_module, "generic_document", lambda _data: pytest.fail("decoded to text"))
    with pytest.raises(ToolError) as caught:
        parse_conversation(data)
    assert (caught.value.code, caught.value.message) == (
        "conversation_unreadable",
        f"the conversation file is not valid UTF-8 JSON: JSON is malformed: {why}",
    )


def test_what_json_loads_may_read_still_goes_to_it() -> None:
    lone = b'{"messages": [{"role": "user", "content": "\\ud800"}]}'
    assert list(parse_conversation(lone)) == [{"role": "user", "content": "\ud800"}]


def test_the_read_budget_makes_a_large_read_wait_and_lets_a_small_one_through() -> None:
    """Held: 3 MiB of a 4 MiB budget. A 2 MiB read waits until it is released; a read under 1 MiB never waits;
    a read larger than the whole budget takes all of it (it runs alone)."""
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    from ccweb_reference.store import SMALL_READ_BYTES, ReadBudget  # noqa: PLC0415

    budget = ReadBudget(4 << 20)
    order: list[str] = []

    def read(name: str, size: int) -> None:
        with budget.hold(size):
            order.append(name)

    with budget.hold(3 << 20):
        large = threading.Thread(target=read, args=("large", 2 << 20))
        large.start()
        read("small", SMALL_READ_BYTES - 1)
        time.sleep(0.2)
        assert order == ["small"]
        assert budget.in_use == 3 << 20
    large.join(timeout=5)
    assert order == ["small", "large"]
    assert budget.in_use == 0
    with budget.hold(1 << 30):
        assert budget.in_use == 4 << 20
    assert budget.in_use == 0
