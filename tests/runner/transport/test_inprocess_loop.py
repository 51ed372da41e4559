"""The in-process reference answers exactly what the stdio reference process answers.

The same lines go to ``python -m ccweb_reference.cli`` (its stdin, then end of input) and to
:class:`~ccweb_conformance.transport.inprocess.InProcessLineIO` (then its ``end_input``); both must write the same
lines. Answers to pipelined requests may come in any order, so the lines are compared sorted,
and the ids each case must see answered are stated too.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

import ccweb_spec
from ccweb_conformance.transport import inprocess

TOOL = "ccweb_list_user_inputs"
BIG = "big"
READ_S = 20.0
PROCESS_S = 60.0


def _message(**fields: Any) -> str:
    """A JSON-RPC message as Python's JSON writer words it: a float NaN or infinity as ``NaN``/``Infinity``."""
    return json.dumps({"jsonrpc": "2.0", **fields})


def _call(request_id: int, arguments: dict[str, Any]) -> str:
    return _message(id=request_id, method="tools/call", params={"name": TOOL, "arguments": arguments})


OPENING = [
    _message(
        id=1,
        method="initialize",
        params={
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "kit-tests", "version": "0"},
        },
    ),
    _message(method="notifications/initialized"),
]
BURST = [_call(n, {"conversationId": BIG, "limit": n}) for n in range(2, 42)]
UNESCAPED_SURROGATE = json.dumps(
    {"jsonrpc": "2.0", "id": 5, "method": "ping", "params": {"x": "\ud800"}}, ensure_ascii=False
)
CASES: dict[str, tuple[list[str], list[int]]] = {
    "nan-and-infinity": (
        [
            *OPENING,
            _message(id=2, method="tools/list", params={"cursor": math.nan}),
            _call(3, {"limit": math.inf}),
            _call(4, {"maxChars": -math.inf}),
            _message(id=5, method="ping"),
        ],
        [1, 5],
    ),
    "not-json-and-lone-surrogates": (
        [
            *OPENING,
            "{not json",
            _message(id=3, method="ping"),
            _call(4, {"conversationId": "\ud800"}),
            UNESCAPED_SURROGATE,
        ],
        [1, 3, 4, 5],
    ),
    "request-then-eof": ([*OPENING, _call(2, {"conversationId": BIG})], [1, 2]),
    "pipelined-burst-then-eof": ([*OPENING, *BURST], list(range(1, 42))),
}


@pytest.fixture(scope="module")
def sessions_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One conversation big enough that its answer is still being made when the input ends."""
    root = tmp_path_factory.mktemp("sessions")
    messages = [{"role": "user", "content": f"{n} " + "x" * 500, "id": f"m{n}"} for n in range(2000)]
    (root / f"{BIG}.json").write_text(json.dumps({"messages": messages}), encoding="utf-8")
    return root


def _wire(lines: list[str]) -> bytes:
    """The bytes the runner writes for ``lines`` (as ``ProcessLineIO.write_line`` encodes them)."""
    return b"".join(line.encode("utf-8", errors="surrogatepass") + b"\n" for line in lines)


def _process_answers(sessions_dir: Path, lines: list[str]) -> list[bytes]:
    environment = {k: v for k, v in os.environ.items() if k != ccweb_spec.binding().source_env}
    done = subprocess.run(
        [sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", str(sessions_dir)],
        input=_wire(lines),
        capture_output=True,
        env=environment,
        timeout=PROCESS_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.splitlines(keepends=True)


def _in_process_answers(sessions_dir: Path, lines: list[str]) -> list[bytes]:
    line_io = inprocess.InProcessLineIO(sessions_dir, None)
    try:
        for line in lines:
            line_io.write_line(line)
        line_io.end_input()
        answers: list[bytes] = []
        while (answer := line_io.read_line(READ_S)) is not None:
            answers.append(answer)
        assert line_io.exit_status(READ_S) == "stopped"
        return answers
    finally:
        line_io.close()


@pytest.mark.parametrize("case", CASES)
def test_in_process_answers_as_the_stdio_process_does(sessions_dir: Path, case: str) -> None:
    lines, answered = CASES[case]
    from_process = _process_answers(sessions_dir, lines)
    from_thread = _in_process_answers(sessions_dir, lines)
    assert sorted(from_thread) == sorted(from_process)
    assert sorted(json.loads(answer)["id"] for answer in from_process) == answered


def test_close_stops_a_server_that_would_not_end(monkeypatch: pytest.MonkeyPatch, sessions_dir: Path) -> None:
    """``close`` is a stop, as the runner stops a process, not an end of input that waits for the loop."""

    async def never_ends(*_: object) -> None:
        await anyio.sleep_forever()

    monkeypatch.setattr(inprocess, "serve_lines", never_ends)
    line_io = inprocess.InProcessLineIO(sessions_dir, None)
    line_io.close()
    assert line_io.exit_status() == "stopped"
    assert line_io.read_line(0) is None
    with pytest.raises(BrokenPipeError):
        line_io.write_line(_message(id=1, method="ping"))


def test_a_server_that_cannot_start_leaves_no_pipe_open(sessions_dir: Path) -> None:
    class NoThreadLeft(threading.Thread):
        def start(self) -> None:
            raise RuntimeError("can't start new thread")

    before = sorted(os.listdir("/dev/fd"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(threading, "Thread", NoThreadLeft)
        with pytest.raises(RuntimeError, match="can't start new thread"):
            inprocess.InProcessLineIO(sessions_dir, None)
    assert sorted(os.listdir("/dev/fd")) == before
