"""stdio's own rules (PROTO-5: nothing after notifications/cancelled; PROTO-6: an exit once stdin ends): what cannot
be judged is skipped with its reason, never passed."""

from __future__ import annotations

import json
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.suite.steps import lifecycle_steps
from ccweb_conformance.transport.client import McpClient
from ccweb_reference import store

CANCEL = "Nothing is sent for a call after the client cancelled it"
EXIT = "The server exits promptly once its standard input ends"
NO_PROCESS = "the in-process reference has no process of its own to exit: not run in process"
NO_STDIN = "an HTTP server has no standard input of the runner's to end: not run over HTTP"
NOT_CANCELLED = (
    "not judged: none of the 3 calls was cancelled in flight: each was answered before its cancellation was sent or"
    " before the server answered a request sent after it (the server had not read it yet: a loaded machine, or a"
    " server that reads a request only once it answered the one before)"
)
PLANNED = 0.0501
"""The runner's listening before a cancellation, told apart from its other listens of 50 ms."""
HELD_S = 1.5
"""How long a held-up runner waits before it cancels: far past the reference's 200 ms, even on a loaded machine."""
RE_READ = "(a conversation file that does not parse keeps a server re-reading it for at least 200 ms, D-14)"
REFERENCE = f"{shlex.quote(sys.executable)} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}"


def _run(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    code = main(["run", *args, "--tags", "PROTO-5,PROTO-6", "--no-rerun", "--json", str(report)])
    return code, json.loads(report.read_text(encoding="utf-8"))


def _verdicts(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {s["name"]: (s["status"], s.get("message") or "") for s in report["scenarios"]}


def _requirements(report: dict[str, Any]) -> dict[str, str]:
    return {r["id"]: r["status"] for r in report["requirements"] if r["id"] in {"PROTO-5", "PROTO-6"}}


def _server_windows(monkeypatch: pytest.MonkeyPatch, *windows: float) -> list[str]:
    """The reference's D-14 re-read window per call of the scenario, in order (the last for every later call); the
    conversations read, one per call."""
    reads: list[str] = []
    read_messages = store.SessionStore.read_messages

    def read_in_window(self: store.SessionStore, conversation_id: str) -> Any:
        reads.append(conversation_id)
        monkeypatch.setattr(store, "TORN_WINDOW_S", windows[min(len(reads), len(windows)) - 1])
        return read_messages(self, conversation_id)

    monkeypatch.setattr(store.SessionStore, "read_messages", read_in_window)
    return reads


def _runner(monkeypatch: pytest.MonkeyPatch, *, waits_for_answer: int = 0, held: int = 0) -> list[int]:
    """The runner's listening before each cancellation: for the first ``waits_for_answer`` calls it listens until
    something comes (the call answered before its cancellation, whatever the machine's load); for the next ``held``
    ones it is held up for ``HELD_S`` after it (descheduled), so the reference's answer is on its way when the
    cancellation is sent, a crossing MCP allows. Returns what is left of both counts, ``[waits, held]``."""
    left = [waits_for_answer, held]
    listen = McpClient.listen
    monkeypatch.setattr(lifecycle_steps, "CANCEL_AFTER", PLANNED)

    def listen_as_told(self: McpClient, seconds: float) -> Any:
        if seconds != PLANNED:
            return listen(self, seconds)
        if left[0]:
            left[0] -= 1
            deadline = time.monotonic() + 30
            while not (heard := listen(self, 0.05)) and time.monotonic() < deadline:
                pass
            return heard
        heard = listen(self, seconds)
        if left[1]:
            left[1] -= 1
            time.sleep(HELD_S)
        return heard

    monkeypatch.setattr(McpClient, "listen", listen_as_told)
    return left


@pytest.mark.parametrize(
    ("windows", "runner"),
    [((0.0, 2.0), {"waits_for_answer": 1}), ((0.2, 2.0), {"held": 1})],
    ids=["answered-before-its-cancellation", "answer-crossed-its-cancellation"],
)
def test_a_call_not_cancelled_in_flight_is_made_again_and_the_next_is_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, windows: tuple[float, ...], runner: dict[str, int]
) -> None:
    """The first call is answered before its cancellation could be sent, or, the runner held up past the server's
    window, as the cancellation is sent: that answer comes before the server answers the tools/list sent after the
    cancellation, so it is no sign of a server that ignores cancellations. The call is made again; the next re-reads
    for 2 s, long enough for the server to read the cancellation on a loaded machine, so it is cancelled in flight
    and the scenario is judged."""
    reads = _server_windows(monkeypatch, *windows)
    left = _runner(monkeypatch, **runner)
    code, report = _run(tmp_path, "--in-process", "--protocol", "legacy")
    assert (left, code, _verdicts(report)[CANCEL], _requirements(report)) == (
        [0, 0],
        0,
        ("passed", ""),
        {"PROTO-5": "passed", "PROTO-6": "untested"},
    )
    # a call again after the first, then the same call sent uncancelled once the server had read the cancellation
    assert reads.count(reads[0]) == 3


@pytest.mark.parametrize(
    ("window", "runner", "shortest_ms"),
    [(0.0, {"waits_for_answer": 3}, 0), (0.2, {"held": 3}, 200)],
    ids=["every-call-answered-before-its-cancellation", "every-answer-crossed-its-cancellation"],
)
def test_a_call_never_cancelled_in_flight_is_not_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: float, runner: dict[str, int], shortest_ms: int
) -> None:
    """A server that answers an unreadable file at once (no D-14 re-reading) answers before each cancellation; one
    whose answer comes as the held-up runner sends it crosses each: 3 calls, none cancelled in flight."""
    reads = _server_windows(monkeypatch, window)
    left = _runner(monkeypatch, **runner)
    code, report = _run(tmp_path, "--in-process", "--protocol", "legacy")
    status, reason = _verdicts(report)[CANCEL]
    assert (left, reads.count(reads[0]), code, status) == ([0, 0], 3, 0, "skipped")
    assert _requirements(report) == {"PROTO-5": "untested", "PROTO-6": "untested"}
    last = re.fullmatch(
        rf"skipped: {re.escape(NOT_CANCELLED)}, the last (\d+) ms after it was sent {re.escape(RE_READ)}", reason
    )
    assert last is not None, reason
    assert shortest_ms <= int(last[1]) < 30_000  # the reference answers once its window is over


def test_in_process_the_exit_at_the_end_of_input_is_not_run(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "--in-process", "--protocol", "legacy")
    assert (code, _verdicts(report)) == (
        0,
        {
            CANCEL: ("passed", ""),
            EXIT: ("skipped", f"skipped: {NO_PROCESS}"),
        },
    )
    assert _requirements(report) == {"PROTO-5": "passed", "PROTO-6": "untested"}


def test_over_http_neither_rule_of_stdio_is_run(tmp_path: Path) -> None:
    code, report = _run(
        tmp_path, "--http-cmd", f"{REFERENCE} --http --port {{port}}", "--url", "http://127.0.0.1:{port}/mcp"
    )
    assert (code, _verdicts(report)) == (
        0,
        {
            CANCEL: (
                "skipped",
                "skipped: over Streamable HTTP a client cancels a call by closing its SSE stream, not with"
                " notifications/cancelled: not run over HTTP",
            ),
            EXIT: ("skipped", f"skipped: {NO_STDIN}"),
        },
    )
    assert _requirements(report) == {"PROTO-5": "untested", "PROTO-6": "untested"}


def test_the_reference_over_stdio_keeps_both(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "--stdio", REFERENCE)
    assert (code, _verdicts(report)) == (0, {CANCEL: ("passed", ""), EXIT: ("passed", "")})
    assert _requirements(report) == {"PROTO-5": "passed", "PROTO-6": "passed"}
    waits = report["waits"]
    assert 0.5 <= waits["cancellation window"] < 2.0  # 50 ms before the cancellation, 500 ms after it
    assert 0.0 <= waits["exit at end of input"] < 2.0


SLOW_SERVER = """
import sys
sys.path.insert(0, {tests!r})
from mutants.catalogue import MUTANTS
from ccweb_reference import store
from ccweb_reference.cli import main
if {mutant!r}:
    MUTANTS["answer_after_cancel"].apply()
store.TORN_WINDOW_S = 1.2  # a server slowed down: its call ends well after the 500 ms the runner listens for
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("mutant", [True, False], ids=["answers-after-cancel", "conforming"])
def test_a_slow_server_is_heard_until_it_answers_the_same_call(tmp_path: Path, mutant: bool) -> None:
    """A server whose call ends 1.2 s after it began (a loaded machine stretches the 200 ms window so) answers a
    cancelled call long after 500 ms: the runner listens until it answers the same call sent uncancelled, so the
    mutant that answers anyway fails, and a conforming server, as slow, passes."""
    script = tmp_path / "slow_server.py"
    tests = str(Path(__file__).resolve().parents[2])
    script.write_text(SLOW_SERVER.format(tests=tests, mutant=mutant), encoding="utf-8")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} --sessions-dir {{sessions_dir}}"
    code, report = _run(tmp_path, "--stdio", command, "--protocol", "legacy")
    status, reason = _verdicts(report)[CANCEL]
    if mutant:
        assert (code, status, _requirements(report)["PROTO-5"]) == (0, "warning", "warning")
        assert "\nPROTO-5: a message for request 2 came " in reason
        cancelled = (
            " ms after the client cancelled it (notifications/cancelled), and after the server answered a request sent"
            " after the cancellation: a cancelled request gets no further"
        )
        assert cancelled in reason
    else:
        assert (code, status, _requirements(report)["PROTO-5"]) == (0, "passed", "passed")
