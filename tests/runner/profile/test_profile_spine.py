"""``profile`` on the shared spine: the config file, SIGHUP, ``-`` for stdout and ``--lang``.

Each test here failed before the profile was folded onto the commands' shared session and
option table (the config file was ignored, SIGHUP left the conversation files behind, ``--json -``
created a file named ``-``, and ``--lang`` was unknown).
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.cli import main

FAKES = Path(__file__).parents[1] / "fakes"
PYTHON = sys.executable
FAST = ["--sizes", "10", "--no-reference", "--settle", "0", "--repeats", "5"]
RUN_BOUND = 120.0
"""Seconds a profile subprocess may take before the test calls it hung (a guard, not a speed check)."""


def fake(mode: str) -> str:
    return shlex.join([PYTHON, str(FAKES / "profile_stdio.py"), mode])


def test_the_config_file_names_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    (tmp_path / "ccweb-conformance.toml").write_text('stdio = "no-such-server-xyz"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["profile", *FAST]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "ccweb-conformance: error: command not found or not executable: 'no-such-server-xyz'\n"


def test_the_config_file_sets_profile_options_and_checks_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    (tmp_path / "ccweb-conformance.toml").write_text("repeats = 0\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["profile", "--sizes", "10"]) == 2
    err = capsys.readouterr().err
    assert err == f"ccweb-conformance: error: {tmp_path / 'ccweb-conformance.toml'}: repeats must be at least 1\n"


def test_json_dash_goes_to_stdout_and_creates_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    assert main(["profile", "--stdio", fake("slow"), *FAST, "--json", "-"]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["format"] == "ccweb-conformance-profile"
    assert document["sizes"] == [10]
    assert "correctness: all 13 calls answered as the reference core does" in err  # the console moved to stderr
    assert list(tmp_path.iterdir()) == []


def test_two_reports_on_one_path_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    target = tmp_path / "r"
    assert main(["profile", *FAST, "--json", str(target), "--markdown", str(target)]) == 2
    err = capsys.readouterr().err
    assert err == f"ccweb-conformance: error: --json and --markdown both write {str(target)!r}; give each its own\n"
    assert not target.exists()


def test_lang_zh_cn_translates_the_console(capsys: pytest.CaptureFixture[str]):
    assert main(["profile", "--stdio", fake("slow"), *FAST, "--lang", "zh-CN"]) == 0
    out = capsys.readouterr().out
    assert "正确性：全部 13 次调用的结果与参考核心一致" in out  # noqa: RUF001 (the Chinese colon is the catalogue's)
    assert "correctness:" not in out


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (all its threads)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(word) for word in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def test_sighup_stops_the_servers_removes_every_file_and_exits_129(tmp_path: Path, start_server: Any):
    temp, sessions = tmp_path / "tmp", tmp_path / "sessions"
    for folder in (temp, sessions):
        folder.mkdir()
    (sessions / "theirs.json").write_text('{"messages": []}', encoding="utf-8")
    _, base = start_server(sessions, http=True)
    env = {**os.environ, "TMPDIR": str(temp)}
    command = [str(Path(PYTHON).with_name("ccweb-conformance")), "profile", "--url", base]
    process = subprocess.Popen(
        [*command, "--sessions-dir", str(sessions), "--sizes", "10,1000", "--settle", "30"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (children(process.pid) and list(sessions.glob("ccwk-*.json"))):
            time.sleep(0.1)
        servers = children(process.pid)
        assert len(servers) == 1  # the reference profiled beside the running server
        assert len(list(sessions.glob("ccwk-*.json"))) == 2  # the tiny and the large conversation, in the user's
        assert len(list(temp.glob("ccweb-*/ccwk-*.json"))) == 2  # and in the runner's own, for the reference
        time.sleep(1.0)
        process.send_signal(signal.SIGHUP)
        _, err = process.communicate(timeout=RUN_BOUND)
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 129
    assert err.decode().endswith("ccweb-conformance: profile interrupted by SIGHUP; servers stopped, files removed\n")
    assert list(temp.iterdir()) == []
    assert sorted(p.name for p in sessions.iterdir()) == ["theirs.json"]
    for pid in servers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
