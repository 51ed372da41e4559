"""``ccweb-conformance check-description``: each fact found or missing with its clause, exit 0/1/2."""
# ruff: noqa: RUF001 (the Chinese output has full-width punctuation)

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main

CLI = str(Path(sys.executable).parent / "ccweb-conformance")
GOOD = (
    "Defaults to the current conversation. Returns the latest 15 user inputs, at most 1,000 characters in total. "
    "Use it to check your work against the user's requirements."
)
TOO_LARGE = "larger than 1,048,576 bytes, which no tool description is"
BAD = "Returns the latest 10 user inputs, at most 1,000 characters per input. Defaults to the current conversation."


def cli(*arguments: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """The installed console script, as a user runs it (in an English locale)."""
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    return subprocess.run([CLI, *arguments], input=stdin, capture_output=True, timeout=60, check=False, env=env)


def test_every_fact_found_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-description", GOOD, "--lang", "en"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "FOUND    current conversation by default",
        '         in: "Defaults to the current conversation"',
        "FOUND    latest 15 user inputs",
        '         in: "Returns the latest 15 user inputs, at most 1,000 characters in total"',
        "FOUND    total budget of 1,000 characters",
        '         in: "Returns the latest 15 user inputs, at most 1,000 characters in total"',
        "FOUND    purpose of checking work against the user's requirements",
        "         in: \"Use it to check your work against the user's requirements\"",
        "4 of 4 facts stated (D-11).",
    ]


def test_missing_facts_name_the_clause_what_it_lacks_and_what_contradicts_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check-description", BAD, "--lang", "en"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "FOUND    current conversation by default",
        '         in: "Defaults to the current conversation"',
        "MISSING  latest 15 user inputs",
        '         closest clause: "Returns the latest 10 user inputs, at most 1,000 characters per input"',
        "         lacks: the number 15",
        '         contradicted by: "latest 10 user inputs" (another count as the default)',
        "MISSING  total budget of 1,000 characters",
        '         closest clause: "Returns the latest 10 user inputs, at most 1,000 characters per input"',
        '         contradicted by: "per input" (a per-item budget)',
        "MISSING  purpose of checking work against the user's requirements",
        "         no clause mentions: a checking word, what the user asked for",
        "1 of 4 facts stated (D-11).",
    ]


def test_chinese_output(capsys: pytest.CaptureFixture[str]) -> None:
    text = "默认读取当前会话最近 15 条助手回复, 合计最多一千字。"
    assert main(["check-description", text, "--lang", "zh-CN"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "已写明  默认读取当前会话",
        "        子句：“默认读取当前会话最近 15 条助手回复, 合计最多一千字”",
        "未写明  最近 15 条用户输入",
        "        最接近的子句：“默认读取当前会话最近 15 条助手回复, 合计最多一千字”",
        "        反例：“15 条助手”（另一种角色的消息）",
        "已写明  合计不超过 1000 个字符",
        "        子句：“默认读取当前会话最近 15 条助手回复, 合计最多一千字”",
        "未写明  用于对照用户要求核对工作",
        "        没有子句提到：表示核对的词、用户要求的内容",
        "4 项事实中写明了 2 项（D-11）。",
    ]


def test_file_and_stdin_give_the_same_answer(tmp_path: Path) -> None:
    wrapped = GOOD.replace(" the current ", " the current\n    ").encode("utf-8")
    (tmp_path / "description.txt").write_bytes(wrapped)
    from_file = cli("check-description", "--file", str(tmp_path / "description.txt"))
    from_stdin = cli("check-description", "-", stdin=wrapped)
    assert (from_file.returncode, from_file.stderr) == (0, b"")
    assert (from_stdin.returncode, from_stdin.stdout, from_stdin.stderr) == (0, from_file.stdout, b"")
    assert from_file.stdout.decode("utf-8").splitlines()[-1] == "4 of 4 facts stated (D-11)."


@pytest.mark.parametrize(
    ("arguments", "stdin", "message"),
    [
        ([], b"", "give the description as TEXT, as - (stdin) or with --file FILE"),
        (["x", "--file", "d.txt"], b"", "give the description once: TEXT, - or --file FILE"),
        (["--file", "no/such.txt"], b"", "cannot read 'no/such.txt': No such file or directory"),
        (["-"], b"\xff", "cannot read 'stdin': not UTF-8 (invalid start byte)"),
        (["--lang", "fr", "x"], b"", "argument --lang: invalid choice: 'fr' (choose from 'en', 'zh-CN')"),
        (["x", "y"], b"", "unrecognized arguments: y"),
        (["--file", ""], b"", "argument --file: expected a path, got an empty string"),
        (["--file", "/dev/zero"], b"", f"cannot read '/dev/zero': {TOO_LARGE}"),
        (["-"], b"a" * (1 << 20) + b"a", f"cannot read 'stdin': {TOO_LARGE}"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(arguments: list[str], stdin: bytes, message: str) -> None:
    result = cli("check-description", *arguments, stdin=stdin)
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode("utf-8") == f"ccweb-conformance: error: {message}\n"


def test_a_description_of_the_largest_size_is_read(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_bytes(b"a" * (1 << 20))
    result = cli("check-description", "--file", str(path))
    assert (result.returncode, result.stderr, result.stdout.decode("utf-8").splitlines()[-1]) == (
        1,
        b"",
        "0 of 4 facts stated (D-11).",
    )


def test_in_process_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-description", "--lang", "en"]) == 2
    assert capsys.readouterr().err == (
        "ccweb-conformance: error: give the description as TEXT, as - (stdin) or with --file FILE\n"
    )


def test_the_console_script_answers_without_importing_the_runner() -> None:
    """It answers before cli imports the suite, reports and transport (seconds on a loaded machine)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", CLI, "check-description", GOOD],
        capture_output=True,
        timeout=60,
        check=False,
    )
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.decode().splitlines() if "|" in line}
    assert result.returncode == 0
    assert "ccweb_conformance.checks.description_check" in imported
    heavy = {"pytest", "pytest_bdd", "jsonschema", "ccweb_conformance.suite", "ccweb_conformance.reports"}
    assert imported & heavy == set()


def test_a_chinese_clause_is_quoted_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Full-width punctuation stays full-width in the quoted clause (the matcher reads it normalised)."""
    text = "读取当前对话中最近的用户输入（默认 15 条），总长度不超过一千个字符：用于核对需求。"
    assert main(["check-description", text, "--lang", "zh-CN"]) == 0
    quoted = [line.strip() for line in capsys.readouterr().out.splitlines() if "子句" in line]
    assert quoted == ["子句：“读取当前对话中最近的用户输入（默认 15 条），总长度不超过一千个字符：用于核对需求”"] * 4
