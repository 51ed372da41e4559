"""``profile`` on the shared spine: the config file, SIGHUP, ``-`` for stdout and ``--lang``.

Each test here failed before the profile was folded onto the commands' shared session and
option table (the config file was ignored, SIGHUP left the conversation files behind, ``--json -``
created a file named ``-``, and ``--lang`` was unknown).
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from runner.profile.profile_processes import assert_gone, fake, interrupt

from ccweb_conformance.cli import main

FAST = ["--sizes", "10", "--no-reference", "--settle", "0", "--repeats", "5"]


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


def test_sighup_stops_the_servers_removes_every_file_and_exits_129(tmp_path: Path, start_server: Any):
    temp, sessions = tmp_path / "tmp", tmp_path / "sessions"
    for folder in (temp, sessions):
        folder.mkdir()
    (sessions / "theirs.json").write_text('{"messages": []}', encoding="utf-8")
    _, base = start_server(sessions, http=True)
    done = interrupt(
        ["--url", base, "--sessions-dir", str(sessions), "--sizes", "10,1000", "--settle", "30"],
        {**os.environ, "TMPDIR": str(temp)},
        signal.SIGHUP,
        ready=lambda servers: bool(servers and list(sessions.glob("*-*-4*.json"))),
        look=lambda: (len(list(sessions.glob("*-*-4*.json"))), len(list(temp.glob("ccweb-*/**/*.json")))),
    )
    assert len(done.servers) == 1  # the reference profiled beside the running server
    assert done.seen == (2, 0)  # the tiny and the large conversation, in the user's directory, which both read
    assert done.returncode == 129
    assert done.err.endswith("ccweb-conformance: profile interrupted by SIGHUP; servers stopped, files removed\n")
    assert list(temp.iterdir()) == []
    assert sorted(p.name for p in sessions.iterdir()) == ["theirs.json"]
    assert_gone(done.servers)
