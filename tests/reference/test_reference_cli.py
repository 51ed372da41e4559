"""The ccweb-reference command line: usage errors are one line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ccweb_reference.cli import main

NO_DIR = "ccweb-reference: error: no sessions directory: pass --sessions-dir or set CC_WEB_SESSIONS_DIR\n"


def not_a_dir(path: Path) -> str:
    return f"ccweb-reference: error: sessions directory {str(path)!r} does not exist or is not a directory\n"


def env_without_sessions_dir() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in {"CC_WEB_SESSIONS_DIR", "CCWEB_SESSION_ID"}}


def run_cli(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ccweb_reference.cli", *args]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=30, env=env, input=stdin)


def test_missing_sessions_dir_in_a_real_process(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    done = run_cli("--sessions-dir", str(missing), "--http", env=env_without_sessions_dir())
    assert (done.returncode, done.stdout, done.stderr) == (2, "", not_a_dir(missing))


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("CC_WEB_SESSIONS_DIR", raising=False)
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    return monkeypatch


def test_no_sessions_dir(clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert capsys.readouterr().err == NO_DIR


def test_empty_sessions_env_is_no_sessions_dir(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    clean_env.setenv("CC_WEB_SESSIONS_DIR", "")
    assert main(["--http"]) == 2
    assert capsys.readouterr().err == NO_DIR


@pytest.mark.parametrize("kind", ["missing", "file"])
@pytest.mark.parametrize("via", ["flag", "env"])
def test_unusable_sessions_dir(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str, via: str
) -> None:
    path = tmp_path / "sessions"
    if kind == "file":
        path.write_text("{}", encoding="utf-8")
    if via == "env":
        clean_env.setenv("CC_WEB_SESSIONS_DIR", str(path))
    assert main(["--sessions-dir", str(path)] if via == "flag" else []) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", not_a_dir(path))


@pytest.mark.parametrize("flag", ["--sessions-dir", "--source-env", "--source-header"])
@pytest.mark.parametrize("word", ["", " "])
def test_an_empty_value_is_a_usage_error(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str, word: str
) -> None:
    """``--sessions-dir ""`` served the working directory; an empty source name bound nothing."""
    given = [] if flag == "--sessions-dir" else ["--sessions-dir", str(tmp_path)]
    with pytest.raises(SystemExit) as exited:
        main([*given, flag, word])
    captured = capsys.readouterr()
    assert (exited.value.code, captured.out) == (2, "")
    last = captured.err.splitlines()[-1]
    assert last == f"ccweb-reference: error: argument {flag}: expected a value, got an empty string"


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_port_out_of_range(
    clean_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path, port: str
) -> None:
    assert main(["--sessions-dir", str(tmp_path), "--http", "--port", port]) == 2
    assert capsys.readouterr().err == f"ccweb-reference: error: port {port} is out of range\n"


def test_sessions_dir_from_environment_serves_stdio(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('{"messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    env = env_without_sessions_dir() | {"CC_WEB_SESSIONS_DIR": str(tmp_path), "CCWEB_SESSION_ID": "c"}
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "ccweb_list_user_inputs", "arguments": {}, "_meta": meta}}  # fmt: skip
    done = run_cli(env=env, stdin=json.dumps(request) + "\n")
    assert done.returncode == 0
    assert done.stderr == ""
    response = json.loads(done.stdout)
    assert response["id"] == 1
    assert response["result"]["structuredContent"] == {
        "ok": True, "conversationId": "c", "requestedLimit": 15, "maxChars": 1000, "totalChars": 2,
        "returnedCount": 1, "hasMore": False,
        "items": [{"messageId": None, "createdAt": None, "content": "hi", "contentChars": 2, "originalChars": 2,
                   "truncated": False}],
    }  # fmt: skip
