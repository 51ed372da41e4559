"""The command line as a user meets it: help with examples, one-line errors, colour only on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main

CLI = str(Path(sys.executable).parent / "ccweb-conformance")
ANSI = "\x1b["
RUN_AC1 = ["run", "--in-process", "--tags", "AC-1"]


def cli(*arguments: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed console script with piped output."""
    return subprocess.run([CLI, *arguments], cwd=cwd, capture_output=True, text=True, timeout=120, env=env, check=False)


def environment(**changes: str | None) -> dict[str, str]:
    """This environment with some variables set or removed."""
    env = dict(os.environ)
    for name, value in changes.items():
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return env


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["run", "--bogus"], "unrecognized arguments: --bogus"),
        (["run", "--timeout", "-1"], "--timeout -1.0 is out of range (0, 600] seconds"),
        (["run", "--timeout", "abc"], "argument --timeout: invalid float value: 'abc'"),
        (
            ["run", "--protocol", "nope"],
            "argument --protocol: invalid choice: 'nope' (choose from 'auto', 'legacy', '2026-07-28')",
        ),
        (["run", "--http-cmd", "x"], "--http-cmd needs --url (for example --url http://127.0.0.1:{port}/mcp)"),
        (
            ["run", "--url", "http://127.0.0.1:1/mcp"],
            "--url without --http-cmd needs --sessions-dir: the directory the running server reads",
        ),
        (
            ["run", "--co", "-k", "a and ("],
            "-k 'a and (': expected not OR left parenthesis OR identifier; got end of input",
        ),
        (["list", "-k", "a b"], "-k 'a b': expected end of input; got identifier"),
        (["run", "--expected-failures", "missing.yaml"], "--expected-failures 'missing.yaml' is not a file"),
        (
            ["run", "--junitxml", "/dev/null/junit.xml"],
            "cannot write '/dev/null/junit.xml': '/dev/null' is not a folder",
        ),
        (["spec", "--check", "missing.md"], "cannot check 'missing.md': no such file"),
        (["spec", "--output", "/dev/null/x/S.md"], "cannot write '/dev/null/x/S.md': '/dev/null' is not a folder"),
        (["spec", "--output", "."], "cannot write '.': it is a folder; name a file in it"),
        (["spec", "--output", ""], "argument --output: expected a path, got an empty string"),
        (["export", "--output", "."], "cannot write '.': it is a folder; name a file in it"),
        (["export", "--output", "/dev/null/c.json"], "cannot write '/dev/null/c.json': '/dev/null' is not a folder"),
        (["export", "--check", ""], "argument --check: expected a path, got an empty string"),
        (["export", "--check", "missing.json"], "cannot check 'missing.json': no such file"),
        (
            ["spec", "--output", "a.md", "--check", "b.md"],
            "--output and --check: give one (--check compares, --output writes)",
        ),
        (
            ["nope"],
            "argument COMMAND: invalid choice: 'nope' "
            "(choose from 'run', 'list', 'spec', 'profile', 'check-description', 'export')",
        ),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_bad_options_give_one_line_and_exit_2(
    arguments: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.chdir(tmp_path)
    assert main(arguments) == 2
    assert capsys.readouterr() == ("", f"ccweb-conformance: error: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_bad_option_in_a_real_process_has_no_traceback(tmp_path: Path):
    result = cli("run", "--timeout", "-1", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        2,
        "",
        "ccweb-conformance: error: --timeout -1.0 is out of range (0, 600] seconds\n",
    )


def help_text(command: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """What ``--help`` prints (it exits 0 without touching stderr)."""
    with pytest.raises(SystemExit) as stop:
        main([*command, "--help"])
    assert stop.value.code == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("command", [[], ["run"], ["spec"]], ids=["top", "run", "spec"])
def test_help_has_examples(command: list[str], capsys: pytest.CaptureFixture[str]):
    assert help_text(command, capsys).count("\nexamples:\n") == 1
    examples = help_text(command, capsys).split("\nexamples:\n", 1)[1]
    lines = [line.strip() for line in examples.splitlines() if line.startswith("  ccweb-conformance ")]
    assert len(lines) >= 2
    assert all(line.startswith(f"ccweb-conformance {command[0] if command else ''}".rstrip()) for line in lines)


def test_top_level_help_lists_the_commands(capsys: pytest.CaptureFixture[str]):
    commands = help_text([], capsys).split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in commands.splitlines()]
    assert names == ["run", "list", "spec", "profile", "check-description", "export"]


def test_no_command_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]):
    assert main([]) == 2
    assert capsys.readouterr().out.startswith("usage: ccweb-conformance [-h] [--version] COMMAND ...\n")


def test_piped_output_has_no_colour(tmp_path: Path):
    result = cli(*RUN_AC1, cwd=tmp_path, env=environment(NO_COLOR=None))
    assert result.returncode == 0
    assert "6 passed, 0 failed in " in result.stdout
    assert ANSI not in result.stdout + result.stderr
    assert "\r" not in result.stderr


def run_on_terminal(env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run the suite with stdout and stderr on a pseudo-terminal; return the exit code and all output."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([CLI, *RUN_AC1], cwd=cwd, env=env, stdout=follower, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_terminal_output_is_coloured_with_live_progress(tmp_path: Path):
    code, output = run_on_terminal(environment(NO_COLOR=None), tmp_path)
    assert code == 0
    assert "\x1b[32mPASS" in output
    assert "\r  6/6 scenarios" in output


def test_no_color_turns_colour_off_on_a_terminal(tmp_path: Path):
    code, output = run_on_terminal(environment(NO_COLOR="1"), tmp_path)
    assert code == 0
    assert "6 passed, 0 failed in " in output
    assert ANSI not in output


def test_other_installed_pytest_plugins_do_not_take_part(tmp_path: Path):
    # A pytest11 plugin elsewhere in the environment (here one that breaks on import, as an
    # order-shuffling or coverage plugin could break the run) is not loaded by the runner.
    site = tmp_path / "site"
    (site / "hostile_plugin-1.0.dist-info").mkdir(parents=True)
    (site / "hostile_plugin-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hostile-plugin\nVersion: 1.0\n"
    )
    (site / "hostile_plugin-1.0.dist-info" / "entry_points.txt").write_text("[pytest11]\nhostile = hostile_plugin\n")
    (site / "hostile_plugin.py").write_text("raise RuntimeError('the hostile plugin was loaded')\n")
    pythonpath = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", str(tmp_path)],
        env=environment(PYTHONPATH=pythonpath),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "the hostile plugin was loaded" in plain.stdout + plain.stderr  # the plugin is really there
    completed = cli(*RUN_AC1, cwd=tmp_path, env=environment(PYTHONPATH=pythonpath, NO_COLOR="1"))
    assert completed.returncode == 0, completed.stderr
    assert "the hostile plugin" not in completed.stdout + completed.stderr
