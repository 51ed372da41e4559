"""The cause of a broken start or handshake, and its hint, are on the default console (issue 23)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main

pytestmark = pytest.mark.slow

FAKE = Path(__file__).parents[1] / "fakes" / "stdout_log_stdio.py"


def command(mode: str) -> str:
    return shlex.join([sys.executable, str(FAKE), mode])


def test_a_log_line_on_stdout_is_named_with_its_hint_without_verbose(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stdio", command("log")]) == 1
    out = capsys.readouterr().out
    cause = "server/discover: the server wrote a line that is not JSON: 'Server listening on stdio\\n'"
    assert f"check        {cause}" in out
    assert (
        "hint         the server printed something that is not JSON-RPC on stdout, the MCP channel: log to stderr "
        "(console.error, not console.log, in Node; print(..., file=sys.stderr) in Python; fmt.Fprintln(os.Stderr, ...) "
        "or the log package, not fmt.Println, in Go)"
    ) in out
    assert "FAIL protocol.feature::The server negotiates MCP (handshake): server/discover: the server wrote" in out


def test_a_log_line_on_stdout_is_named_in_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stdio", command("log"), "--lang", "zh-CN"]) == 1
    out = capsys.readouterr().out
    assert "Node 用 console.error 而不是 console.log" in out


def test_an_answer_under_another_id_is_named_with_its_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stdio", command("wrong-id")]) == 1
    out = capsys.readouterr().out
    assert "initialize: a response with id 102 while waiting for id 2" in out
    assert "answer every request with its own id, copied from the request (JSON-RPC)" in out


def test_an_exit_at_start_up_is_one_line_with_its_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stdio", command("exit")]) == 2
    first, err = capsys.readouterr().err.split("\n", 1)  # the first line names what starts
    assert first.startswith("ccweb-conformance: testing the stdio server ")
    assert err == (
        f"ccweb-conformance: error: stdio server {command('exit')!r}: could not negotiate MCP: the process exited "
        "with code 3 at start-up; stderr: fatal: cannot open the configuration; hint: the server stopped before "
        "answering initialize: run its command by hand to see why (its last output is quoted above); a missing "
        "build step, dependency or environment variable is the usual cause\n"
    )


def test_no_answer_to_initialize_is_one_line_with_its_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--stdio", command("silent"), "--timeout", "1"]) == 2
    err = capsys.readouterr().err.split("\n", 1)[1]  # past the first line, naming what starts
    assert err.count("\n") == 1
    assert "initialize: no response within" in err
    assert err.endswith("; hint: initialize got no answer: an MCP stdio server reads JSON-RPC from stdin and writes "
                        "one message per line to stdout, flushed (no buffering); log to stderr (console.error, not "
                        "console.log)\n")
