"""Bounded waits and memory in the transport: the message cap, sampling, signals, leftover processes."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.transport import lines, reaper, signals
from ccweb_conformance.transport.channel import OTHERS_KEPT, TEXT_LIMIT, VIOLATIONS_KEPT, MessageTooLarge, Reply
from ccweb_conformance.transport.lines import QueueReader
from ccweb_conformance.transport.sse import iter_events, split_lines


def test_an_sse_line_over_the_limit_is_refused_and_one_at_the_limit_kept() -> None:
    assert list(split_lines([b"ab", b"cd\nef"], limit=4)) == ["abcd", "ef"]
    with pytest.raises(MessageTooLarge, match=r"larger than the limit of 4 bytes \(--max-message-bytes\)"):
        list(split_lines([b"ab", b"cde\n"], limit=4))
    with pytest.raises(MessageTooLarge):
        list(split_lines([b"abcde"], limit=4))  # refused before its end arrives


def test_an_sse_line_is_measured_in_bytes_like_stdio_and_json_bodies() -> None:
    """Two characters of three bytes each: 6 bytes, over a limit of 4 although only 2 characters."""
    assert list(split_lines(["用户\n".encode()], limit=6)) == ["用户"]
    with pytest.raises(MessageTooLarge):
        list(split_lines(["用户\n".encode()], limit=4))
    with pytest.raises(MessageTooLarge):
        list(iter_events(["data: 用户", ""], limit=4))


def test_a_character_split_across_chunks_is_decoded_whole() -> None:
    encoded = "data: 😀\n".encode()
    assert list(split_lines([encoded[:8], encoded[8:]])) == ["data: 😀"]
    assert list(split_lines([b"data: \xff\n"])) == ["data: \ufffd"]  # not UTF-8: replaced, as the standard says


def test_an_sse_event_over_the_limit_is_refused_however_its_data_lines_are_split() -> None:
    assert [e.data for e in iter_events(["data: ab", "data: c", ""], limit=4)] == ["ab\nc"]  # 2 + 1 + 1 bytes
    with pytest.raises(MessageTooLarge):
        list(iter_events(["data: ab", "data: cd", ""], limit=4))


def _reader(data: bytes, limit: int) -> QueueReader:
    return QueueReader(io.BufferedReader(io.BytesIO(data)), limit)  # type: ignore[arg-type]


def test_the_stdio_pump_drops_a_line_over_the_limit_and_reads_on() -> None:
    reader = _reader(b"1234\n" + b"x" * 100 + b"\n" + b"ok\n" + b"tail", limit=4)
    assert reader.get(5.0) == b"1234\n"
    with pytest.raises(MessageTooLarge):
        reader.get(5.0)
    assert reader.get(5.0) == b"ok\n"
    assert reader.get(5.0) == b"tail"
    assert reader.get(5.0) is None
    assert reader.get(5.0) is None


def test_a_partial_line_times_out_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judged on a clock the test moves: the reader waits 0.3 s in all, then gives up, however slow the machine."""
    read_end, write_end = os.pipe()
    os.write(write_end, b'{"jsonrpc": "2.0", "id"')
    with os.fdopen(read_end, "rb") as stream:
        reader = QueueReader(stream)
        clock = [0.0]
        waits: list[float | None] = []

        def waited(timeout: float | None = None) -> bool:
            waits.append(timeout)
            assert timeout is not None and len(waits) < 10, f"still waiting after {waits}"
            clock[0] += timeout
            return False

        try:
            with monkeypatch.context() as fake:
                fake.setattr(lines, "time", SimpleNamespace(monotonic=lambda: clock[0]))
                fake.setattr(reader._ready, "wait", waited)
                with pytest.raises(TimeoutError):
                    reader.get(0.3)
        finally:
            os.close(write_end)  # else closing the stream waits for the pump's read for ever
        assert reader.get(5.0) == b'{"jsonrpc": "2.0", "id"'
    assert (waits, clock) == ([0.3], [0.3])


def test_a_reply_checks_every_other_message_and_keeps_the_first_ones() -> None:
    reply = Reply()
    checked: list[dict[str, Any]] = []

    def inspect(message: dict[str, Any]) -> list[str]:
        checked.append(message)
        return ["bad", "worse"]

    for number in range(1000):
        reply.add_other({"method": "notifications/message", "n": number}, inspect)
    assert (len(reply.others), reply.others[-1]["n"]) == (OTHERS_KEPT, OTHERS_KEPT - 1)
    assert len(checked) == 1000  # every message is checked, only the first ones are kept
    assert (len(reply.other_violations), reply.other_violations_seen) == (VIOLATIONS_KEPT, 2000)


def test_a_reply_keeps_about_text_limit_characters_and_says_how_many_more_came() -> None:
    reply = Reply()
    for _ in range(10_000):
        reply.add_text("y" * 99)
    assert sum(len(t) for t in reply.texts) < TEXT_LIMIT + 200
    assert reply.received_text() == "\n".join(["y" * 99] * 10_000)[:TEXT_LIMIT] + "... [979999 more characters]"


def test_a_signal_inside_a_shielded_block_is_raised_when_it_ends() -> None:
    events: list[str] = []
    with signals.interrupts() as state, pytest.raises(RunInterrupted) as raised:
        with signals.shielded():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            events.append("clean-up finished")
        events.append("not reached")
    assert events == ["clean-up finished"]
    assert (raised.value.signum, raised.value.name, state.name) == (signal.SIGTERM, "SIGTERM", "SIGTERM")


def test_a_second_signal_is_only_recorded() -> None:
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN when the suite runs as a background job
    with signals.interrupts() as state:
        with pytest.raises(RunInterrupted):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)
        os.kill(os.getpid(), signal.SIGHUP)
        time.sleep(0.05)
    assert (state.name, state.extra) == ("SIGINT", ["SIGHUP"])
    assert signal.getsignal(signal.SIGINT) is before


def test_a_signal_ignored_when_the_run_began_stays_ignored() -> None:
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as nohup starts a process
    try:
        with signals.interrupts() as state:
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)
        assert (state.signum, state.extra) == (None, [])
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def _running_with(process: subprocess.Popen[bytes], variable: bytes, timeout: float = 30.0) -> None:
    """Wait, bounded, until ``process`` runs its own program: its environment holds ``variable`` (NAME=value)."""
    deadline = time.monotonic() + timeout
    while variable not in Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0"):
        assert time.monotonic() < deadline, f"pid {process.pid} did not start within {timeout} s"
        time.sleep(0.01)


def test_a_marked_process_is_found_and_killed_and_others_are_not() -> None:
    code = "import time; time.sleep(60)"
    run = reaper.Reaping()
    marked = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, **run.marks()})  # no subreaper
    unmarked = subprocess.Popen([sys.executable, "-c", code], env={**os.environ, reaper.MARKER_ENV: "someone-else"})
    try:
        for process, mark in ((marked, run.marker), (unmarked, "someone-else")):
            _running_with(process, f"{reaper.MARKER_ENV}={mark}".encode())
        found = run.sweep()
        assert [leftover.pid for leftover in found] == [marked.pid]
        assert marked.wait(5) == -signal.SIGKILL
        assert unmarked.poll() is None
    finally:
        for process in (marked, unmarked):
            process.kill()
            process.wait()


def test_the_environments_are_read_only_once_the_marker_was_handed_out(monkeypatch: pytest.MonkeyPatch) -> None:
    read = []
    monkeypatch.setattr(reaper, "marked_processes", lambda marker, name=reaper.MARKER_ENV: read.append(marker) or [])
    monkeypatch.setattr(reaper.Reaping, "adopted_processes", lambda self: [])
    run = reaper.Reaping()
    run.subreaping = True  # a subreaper's servers carry no marker
    swept = [run.marks(), run.sweep(), list(read)]
    run.subreaping = False
    swept += [run.marks(), run.sweep(), list(read)]
    assert swept == [{}, [], [], {reaper.MARKER_ENV: run.marker}, [], [run.marker]]
