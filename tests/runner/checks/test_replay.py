"""The Python harness of the exported cases: what counts as equal, and what a call may not do."""

from __future__ import annotations

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
        seen.append((sessions.name, source, arguments, sorted(p.name for p in sessions.iterdir())))
        return {"ok": True, "conversationId": source, "totalChars": 2}

    assert replay_case(CASE, function) == []
    assert seen == [("sessions", "a", None, ["a.json"])]


def test_a_function_that_writes_or_throws_fails_the_case():
    def writes(sessions, source, arguments):
        (sessions / "a.json").write_text('{"hasUnread": false}')
        return {"ok": True, "conversationId": "a", "totalChars": 2}

    def throws(sessions, source, arguments):
        raise RuntimeError("boom")

    assert replay_case(CASE, writes) == ["step 1: the call changed the files (RO-1, RO-2)"]
    assert replay_case(CASE, throws) == ["step 1: the function raised RuntimeError: boom"]


def test_a_call_that_hangs_fails_its_case_at_the_time_bound_and_its_folder_goes():
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    release = threading.Event()
    seen = []

    def hangs(sessions, source, arguments):
        seen.append(sessions.parent)
        release.wait(30)
        return {"ok": True, "conversationId": "a", "totalChars": 2}

    started = time.monotonic()
    problems = replay_case(CASE, hangs, timeout=0.3)
    elapsed = time.monotonic() - started
    release.set()
    assert problems == ["step 1: no answer within the case's time bound of 0.3 s"]
    assert 0.3 <= elapsed < 2.0
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
