"""Target options real servers need: --header (redacted everywhere), --env, --sessions-dir with --stdio."""

from __future__ import annotations

import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.options import RunnerOptions, command_line, redact
from ccweb_conformance.values import target_of

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
TOKEN = "s3cret-T0ken-4711"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def reference_with_token(tmp_path: Path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    port = free_port()
    command = [str(BIN / "ccweb-reference"), "--http", "--port", str(port), "--sessions-dir", str(sessions),
               "--auth-token", TOKEN]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", sessions
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_header_reaches_a_server_that_needs_it_and_no_report_shows_it(reference_with_token, tmp_path, capsys):
    url, sessions = reference_with_token
    reports = {name: tmp_path / name for name in ("junit.xml", "report.json", "cucumber.json", "summary.md")}
    code = main([
        "run", "--url", url, "--sessions-dir", str(sessions), "--header", f"Authorization: Bearer {TOKEN}",
        "--junitxml", str(reports["junit.xml"]), "--json", str(reports["report.json"]),
        "--cucumberjson", str(reports["cucumber.json"]), "--markdown", str(reports["summary.md"]),
    ])
    out, err = capsys.readouterr()
    assert code == 0, out[-3000:] + err[-2000:]
    assert "ccweb_list_user_inputs conformance: PASSED" in out
    for path in reports.values():
        assert TOKEN not in path.read_text(encoding="utf-8"), path.name
    assert TOKEN not in out + err
    assert sorted(p.name for p in sessions.iterdir()) == []  # the runner removed what it made


def test_without_the_header_the_server_refuses(reference_with_token, capsys):
    url, sessions = reference_with_token
    assert main(["run", "--url", url, "--sessions-dir", str(sessions), "--tags", "TOOL-1"]) == 2
    assert "401" in capsys.readouterr().err


def test_header_values_are_redacted_where_options_are_shown():
    options = RunnerOptions(url="http://127.0.0.1:1/mcp", header=(f"Authorization: Bearer {TOKEN}", "X-Team: a"))
    assert command_line(options, ["target"]) == [
        "--url", "http://127.0.0.1:1/mcp", "--header", "Authorization: ***", "--header", "X-Team: ***",
    ]
    assert redact(f"sent Bearer {TOKEN} twice: {TOKEN}", target_of(options).secrets) == "sent *** twice: ***"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--url", "http://127.0.0.1:1/mcp", "--sessions-dir", ".", "--header", "no colon"],
         "--header 'no colon'...: expected 'Name: value' with a header name of letters, digits, -"),
        (["--header", "A: b"], "--header needs an HTTP target (--url, or --http-cmd with --url)"),
        (["--env", "1X=2"], "--env '1X'...: expected KEY=VALUE"),
        (["--url", "http://127.0.0.1:1/mcp", "--sessions-dir", ".", "--env", "A=1"],
         "--env is for a spawned server (--stdio, --http-cmd or the bundled reference)"),
    ],
)
def test_bad_target_options_are_usage_errors(arguments, message, capsys):
    assert main(["run", *arguments]) == 2
    assert capsys.readouterr().err == f"ccweb-conformance: error: {message}\n"


def test_env_reaches_a_spawned_server_and_sessions_dir_works_with_stdio(tmp_path, capsys):
    mine = tmp_path / "my-sessions"
    mine.mkdir()
    (mine / "existing.json").write_text('{"messages": []}', encoding="utf-8")
    server = shlex.join([str(BIN / "ccweb-reference"), "--sessions-dir", "{sessions_dir}"])
    command = f'sh -c \'test "$CCWK_MARK" = yes && exec {server}\''
    base = ["run", "--stdio", command, "--sessions-dir", str(mine), "--tags", "AC-3"]
    assert main([*base, "--env", "CCWK_MARK=yes"]) == 0, capsys.readouterr()
    assert sorted(p.name for p in mine.iterdir()) == ["existing.json"]
    assert main(base) == 2  # without the variable the server does not start
    capsys.readouterr()


def test_sessions_dir_reached_through_a_symbolic_link(tmp_path, capsys):
    """--sessions-dir LINK (macOS /tmp): links, folders and the '..x' folder are judged against the resolved path."""
    real = tmp_path / "real-sessions"
    real.mkdir()
    (real / "existing.json").write_text('{"messages": []}', encoding="utf-8")
    link = tmp_path / "sessions-link"
    link.symlink_to(real, target_is_directory=True)
    # the bundled reference's own command (this interpreter, -m): the run forks its servers from one process
    server = shlex.join([sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", "{sessions_dir}"])
    code = main(["run", "--stdio", server, "--sessions-dir", str(link), "--tags", "SRC-7", "--fuzz", "0"])
    out = capsys.readouterr().out
    assert code == 0, out[-3000:]
    assert "0 failed" in out
    assert sorted(p.name for p in real.iterdir()) == ["existing.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real-sessions", "sessions-link"]
