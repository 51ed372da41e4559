"""The Python harness of the exported cases: what counts as equal, and what a call may not do."""

from __future__ import annotations

import os
import time

import pytest

from ccweb_conformance.checks.replay import call_problems, replay_case

SUCCESS = {"ok": True, "conversationId": "a", "totalChars": 1, "items": [{"content": "\ud800", "contentChars": 1}]}


def test_extra_fields_and_key_order_are_free_and_a_lone_surrogate_may_be_fffd():
    got = {"items": [{"contentChars": 1, "content": "\ufffd", "extra": 1}], "totalChars": 1.0, "conversationId": "a",
           "ok": True, "more": None}
    assert call_problems({"result": SUCCESS}, got) == []


def test_a_different_value_is_named_with_its_path():
    got = {**SUCCESS, "totalChars": 2}
    assert call_problems({"result": SUCCESS}, got) == ["$.totalChars: expected 1, got 2"]
    assert call_problems({"result": SUCCESS}, {**SUCCESS, "ok": 1}) == ["$.ok: expected true, got 1"]


def test_an_error_needs_its_code_a_message_and_one_of_the_fields():
    expect = {"error": "invalid_arguments", "field": ["limit", "maxChars"]}
    right = {"code": "invalid_arguments", "message": "m", "field": "limit"}
    assert call_problems(expect, {"ok": False, "error": right}) == []
    wrong = {"code": "invalid_arguments", "message": "", "field": "x"}
    assert call_problems(expect, {"ok": False, "error": wrong}) == [
        '$.error.message: expected a non-empty string, got ""',
        "$.error.field: expected one of ['limit', 'maxChars'], got \"x\"",
    ]
    assert call_problems({"error": "conversation_not_found"}, SUCCESS) == [
        "$: expected an error object with code 'conversation_not_found', got "
        '{"ok": true, "conversationId": "a", "totalChars": 1, "items": [{"content": "\ud800", "contentChars": 1}]}'
    ]


CASE = {
    "steps": [
        {"op": "write", "path": "sessions/a.json", "utf8": '{"messages": [{"role": "user", "content": "hi"}]}'},
        {"op": "call", "source": "a", "expect": {"result": {"ok": True, "conversationId": "a", "totalChars": 2}}},
    ]
}


def test_a_case_replays_in_a_fresh_folder_and_passes_for_a_right_function():
    seen = []

    def function(sessions, source, arguments):
        names = sorted(p.name for p in sessions.iterdir())
        seen.append((sessions.name, sessions.resolve().name, source, arguments, names))
        return {"ok": True, "conversationId": source, "totalChars": 2}

    assert replay_case(CASE, function) == []
    assert seen == [("sessions", "sessions-data", "a", None, ["a.json"])]  # reached through a link (D-7)


def test_a_function_that_writes_or_throws_fails_the_case():
    def writes(sessions, source, arguments):
        (sessions / "a.json").write_text('{"hasUnread": false}')
        return {"ok": True, "conversationId": "a", "totalChars": 2}

    def throws(sessions, source, arguments):
        raise RuntimeError("boom")

    problems = replay_case(CASE, writes)
    assert len(problems) == 1
    assert problems[0].startswith(
        "step 1: the call changed the files (RO-1, RO-2): sessions-data/a.json changed: size 49 -> 20"
    )
    assert replay_case(CASE, throws) == ["step 1: the function raised RuntimeError: boom"]


def _reads_then(change):
    """A right answer, after ``change(file)`` did something a read-only call may not do."""

    def function(sessions, source, arguments):
        change(sessions / "a.json")
        return {"ok": True, "conversationId": "a", "totalChars": 2}

    return function


def _chmod_same_mode(path):
    path.chmod(path.stat().st_mode)  # moves only the change time


def _rename_same_bytes_same_mtime(path):
    before = path.stat()
    copy = path.with_name("a.json.tmp")
    copy.write_bytes(path.read_bytes())
    os.replace(copy, path)  # same bytes, same size: a new inode (and a temporary entry during the call)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _lock_file(path):
    lock = path.with_name("a.json.lock")
    lock.write_bytes(b"")
    lock.unlink()  # gone before the call returns


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (_chmod_same_mode, "sessions-data/a.json changed: ctime_ns "),
        (_rename_same_bytes_same_mtime, "sessions-data/a.json changed: ctime_ns "),
        (_lock_file, "sessions-data/a.json.lock (created, removed) (seen during the call)"),
    ],
    ids=["ctime only", "inode", "transient entry"],
)
def test_a_call_that_moves_ctime_or_inode_or_makes_a_transient_entry_fails_the_read_only_check(change, named):
    """Bytes, size, mode and mtime unchanged each time: before, these passed (size, mtime and mode were compared)."""
    problems = replay_case(CASE, _reads_then(change))
    assert len(problems) == 1, problems
    assert problems[0].startswith("step 1: the call changed the files (RO-1, RO-2): ")
    assert named in problems[0]
    if change is _rename_same_bytes_same_mtime:
        assert "inode " in problems[0]


def test_a_rewrite_keeps_the_exact_mtime_a_rename_makes_a_new_inode_and_an_age_is_whole_seconds(tmp_path):
    from ccweb_conformance.checks.replay import apply_step  # noqa: PLC0415

    target = tmp_path / "a.json"
    before = time.time_ns() // 1_000_000_000
    apply_step(tmp_path, {"op": "write", "path": "a.json", "utf8": "aaaa", "ageSeconds": 10800})
    after = time.time_ns() // 1_000_000_000
    first = target.stat()
    assert first.st_mtime_ns % 1_000_000_000 == 0
    assert before - 10800 <= first.st_mtime_ns // 1_000_000_000 <= after - 10800  # the second it was written, aged
    apply_step(tmp_path, {"op": "write", "path": "a.json", "utf8": "bbbb", "keepMtime": True})
    second = target.stat()
    assert (second.st_mtime_ns, second.st_ino, target.read_text()) == (first.st_mtime_ns, first.st_ino, "bbbb")
    apply_step(tmp_path, {"op": "write", "path": "a.json", "utf8": "cccc", "replace": True, "keepMtime": True})
    third = target.stat()
    assert (third.st_mtime_ns, target.read_text()) == (first.st_mtime_ns, "cccc")
    assert third.st_ino != first.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


def test_a_call_that_hangs_fails_its_case_at_the_time_bound_and_its_folder_goes():
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    release, answered = threading.Event(), threading.Event()
    seen = []

    def hangs(sessions, source, arguments):
        seen.append(sessions.parent)
        release.wait(30)
        answered.set()
        return {"ok": True, "conversationId": "a", "totalChars": 2}

    started = time.monotonic()
    problems = replay_case(CASE, hangs, timeout=0.3)
    elapsed = time.monotonic() - started
    still_hanging = not answered.is_set()  # the case ended at its bound, not when the call gave up
    release.set()
    assert problems == ["step 1: no answer within the case's time bound of 0.3 s"]
    assert (elapsed >= 0.3, still_hanging) == (True, True)
    assert not seen[0].exists()


def test_the_case_time_bound_comes_from_the_environment(monkeypatch):
    import pytest  # noqa: PLC0415

    from ccweb_conformance.checks.replay import case_timeout  # noqa: PLC0415

    monkeypatch.delenv("CCWEB_CASE_TIMEOUT_MS", raising=False)
    assert case_timeout() == 30.0
    monkeypatch.setenv("CCWEB_CASE_TIMEOUT_MS", "250")
    assert case_timeout() == 0.25
    assert case_timeout(2.0) == 2.0
    monkeypatch.setenv("CCWEB_CASE_TIMEOUT_MS", "-1")
    with pytest.raises(ValueError, match="positive number of milliseconds"):
        case_timeout()


STOPPED_MID_CASE = """
import sys, time
from ccweb_conformance.checks.replay import replay_case
CASE = {case!r}
def hangs(sessions, source, arguments):
    print(sessions.parent, flush=True)
    time.sleep(60)
replay_case(CASE, hangs)
"""


def test_sigterm_mid_case_removes_its_folder_then_the_process_dies_of_it(tmp_path):
    """A harness stopped by SIGTERM or SIGHUP while a call hangs: its case folder is gone (it was left before)."""
    import os  # noqa: PLC0415
    import signal  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    for signum in (signal.SIGTERM, signal.SIGHUP):
        process = subprocess.Popen(
            [sys.executable, "-c", STOPPED_MID_CASE.format(case=CASE)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "TMPDIR": str(tmp_path)},
        )
        try:
            assert process.stdout is not None
            folder = Path(process.stdout.readline().strip())
            assert folder.is_dir()
            process.send_signal(signum)
            returncode = process.wait(timeout=30)
        finally:
            process.kill()
            process.wait(timeout=30)
        assert returncode == -signum
        assert not folder.exists()
        assert sorted(tmp_path.iterdir()) == []
