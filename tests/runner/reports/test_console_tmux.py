# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The Chinese console summary as a real terminal shows it: run under tmux, read the screen back.

Columns must line up on screen (a CJK character takes two cells), no escape sequence may show
as text, and nothing may be mangled (no U+FFFD, no ``\\uXXXX`` escapes of real characters).
Two runs: the reference (it passes) and a mutant counting UTF-16 units (its failure blocks
and hints in Chinese, their label column aligned).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from paths import REPO

import ccweb_spec
from ccweb_conformance.i18n import messages
from ccweb_conformance.suite.scenario_index import feature_scenarios
from ccweb_conformance.textwidth import display_width

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install -y tmux; .ci/run does)")
RUNNER = Path(sys.executable).with_name("ccweb-conformance")
COMMAND = [str(RUNNER), "run", "--in-process", "--lang", "zh-CN", "--tags", "AC-7"]
FAILING_COMMAND = [
    sys.executable, str(REPO / "tests" / "mutants" / "run.py"), "mutant", "utf16_units",
    "run", "--in-process", "--lang", "zh-CN", "--tags", "AC-7",
]  # fmt: skip
BLOCK_LABELS = ("需求", "检查", "差异", "请求", "来源", "会话", "提示", "复现", "单独")
"""The labels of a failure block in Chinese (expected and got appear only without differences)."""
REQUIREMENT_LINE = re.compile(r"^  (\S+) +([A-Z]+-\d+) +(MUST|SHOULD) +(\S.*)$")
WAIT_S = 120.0
EXIT_MARK = "ccwk-exit-status="


def tmux(socket: str, *args: str) -> str:
    done = subprocess.run(
        [str(TMUX), "-u", "-L", socket, *args], capture_output=True, text=True, timeout=30, check=True
    )
    return done.stdout


@pytest.fixture(scope="module")
def screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(screen text, exit status) of the reference's run, in a 400x200 tmux pane."""
    yield from run_in_tmux(tmp_path_factory.mktemp("tmux"), COMMAND)


@pytest.fixture(scope="module")
def failing_screen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(screen text, exit status) of the UTF-16 mutant's run, in a 400x200 tmux pane."""
    yield from run_in_tmux(tmp_path_factory.mktemp("tmux-failing"), FAILING_COMMAND)


def run_in_tmux(folder: Path, argv: list[str]) -> Iterator[tuple[str, str]]:
    """(screen text, exit status) of ``argv``, run in a 400x200 tmux pane of a private server."""
    config = folder / "tmux.conf"
    config.write_text("set -g remain-on-exit on\nset -g history-limit 5000\n", encoding="utf-8")
    socket = f"ccwk-{uuid.uuid4().hex[:12]}"
    command = f'cd {shlex.quote(str(folder))} && {shlex.join(argv)}; echo "{EXIT_MARK}$?"'
    tmux(socket, "-f", str(config), "new-session", "-d", "-x", "400", "-y", "200", "-s", "zh", command)
    try:
        deadline = time.monotonic() + WAIT_S
        while tmux(socket, "display-message", "-p", "-t", "zh", "#{pane_dead}").strip() != "1":
            assert time.monotonic() < deadline, f"the run did not end within {WAIT_S:.0f} s"
            time.sleep(0.2)
        text = tmux(socket, "capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "zh")
        marks = re.findall(rf"^{EXIT_MARK}(\d+)$", text, re.MULTILINE)
        yield text.split(EXIT_MARK)[0], marks[0] if marks else "(none)"
    finally:
        subprocess.run([str(TMUX), "-L", socket, "kill-server"], capture_output=True, timeout=30, check=False)


def test_the_run_passes(screen: tuple[str, str]) -> None:
    text, status = screen
    assert status == "0", text
    assert "ccweb_list_user_inputs 一致性测试：PASSED（仅所选场景：--tags AC-7）" in text.splitlines()


def selected_requirements() -> list[ccweb_spec.Requirement]:
    """The requirements the ``--tags AC-7`` scenarios prove: the only ones a selected run reports."""
    proved = {t for s in feature_scenarios() if "AC-7" in s.tags for t in s.tags}
    return [r for r in ccweb_spec.requirements() if r.id in proved]


def test_chinese_headings_and_statements_show_as_written(
    screen: tuple[str, str], request: pytest.FixtureRequest
) -> None:
    lines = [line.rstrip() for line in screen[0].splitlines()]
    groups = {r.group for r in selected_requirements()}
    assert {"AC-7", "AC-6"} <= groups
    for group in (g for g in ccweb_spec.groups() if g.id in groups):
        assert f"{group.id}  {group.title_zh}" in lines, group.id
    uni1 = next(r for r in ccweb_spec.requirements() if r.id == "UNI-1")
    assert f"  PASS    UNI-1     MUST    {uni1.statement_zh}" not in lines  # passing: compact, without -v
    failing = [line.rstrip() for line in request.getfixturevalue("failing_screen")[0].splitlines()]
    # not passing: in full; the verdict column is as wide as 未检查到 (BUD-1: the UTF-16 answers are charged to UNI-1)
    assert f"  FAIL      UNI-1     MUST    {uni1.statement_zh}" in failing
    assert re.search(r"^通过 \d+，失败 0，用时 \d+\.\d\d 秒$", screen[0], re.MULTILINE)


def test_columns_line_up_on_screen(screen: tuple[str, str], failing_screen: tuple[str, str]) -> None:
    by_group: dict[str, list[str]] = {}
    for requirement in selected_requirements():
        by_group.setdefault(requirement.group, []).append(requirement.id)
    passing = [line.rstrip() for line in screen[0].splitlines() if line.startswith("  PASS ")]
    assert sorted(passing) == sorted(f"  PASS    {' '.join(ids)}" for ids in by_group.values())  # one per criterion
    rows = [line.rstrip() for line in failing_screen[0].splitlines() if REQUIREMENT_LINE.match(line.rstrip())]
    assert rows
    assert "PASS" not in {m.group(1) for m in map(REQUIREMENT_LINE.match, rows) if m}  # those in full: not passing

    def columns(line: str) -> tuple[int, ...]:
        match = REQUIREMENT_LINE.match(line)
        assert match is not None
        return tuple(display_width(line[: match.start(n)]) for n in (1, 2, 3, 4))

    assert {columns(row) for row in rows} == {(2, 12, 22, 30)}  # verdict (未检查到 the widest), ID, level, statement


@pytest.mark.parametrize("which", ["screen", "failing_screen"])
def test_no_escape_sequences_or_mojibake(which: str, request: pytest.FixtureRequest) -> None:
    text = request.getfixturevalue(which)[0]
    assert "\x1b" not in text
    assert not re.search(r"\[[0-9;]*m", text), "an ANSI colour code shows as text"
    assert "\ufffd" not in text
    # a lone surrogate (half of a character, as a UTF-16 cut leaves it) cannot be shown: it is
    # escaped on purpose (\ud83d); any other \uXXXX would be a real character mangled
    assert not re.search(r"\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4}", text), "a character shows as a \\u escape"
    assert not re.search(r"[ÃÂæåè][\x80-\xbf]", text), "UTF-8 shown as Latin-1"


def test_a_failing_run_shows_its_blocks_and_hints_in_chinese(failing_screen: tuple[str, str]) -> None:
    text, status = failing_screen
    lines = [line.rstrip() for line in text.splitlines()]
    assert status == "1", text
    assert "ccweb_list_user_inputs 一致性测试：FAILED" in lines
    assert "失败（9）" in lines
    uni1 = next(r for r in ccweb_spec.requirements() if r.id == "UNI-1")
    assert f"    需求  UNI-1（MUST）：{uni1.statement_zh}" in lines
    assert "    差异  $.items[0].contentChars：应为 1，实际为 2" in lines
    assert sum(line.startswith("    提示  长度看起来是按 UTF-16 码元计算的") for line in lines) >= 1


GROUP_LINES = tuple(f"    {messages(lang)('block.same_failure', count=0).split('0')[0]}" for lang in ("en", "zh-CN"))
"""How the line naming a group's other scenarios starts: it ends the block above it."""


def block_lines(lines: list[str]) -> list[str]:
    """The lines of every failure block on screen, their heads (``FAIL ...``) and groups' names left out."""
    inside, found = False, []
    for line in lines:
        if line.startswith(("FAIL ", "WARN ")):
            inside = True
        elif line.startswith(GROUP_LINES):
            inside = False
        elif inside and line.startswith("    "):
            found.append(line)
        else:
            inside = False
    return found


def test_the_label_column_of_a_block_lines_up_on_screen(failing_screen: tuple[str, str]) -> None:
    lines = block_lines([line.rstrip() for line in failing_screen[0].splitlines()])
    label = re.compile(rf"^    ({'|'.join(BLOCK_LABELS)}) +(\S)")
    labelled = [m for m in map(label.match, lines) if m]
    assert {m.group(1) for m in labelled} == set(BLOCK_LABELS)
    # every value starts at the same screen column, after the label (CJK: two cells a character)
    assert {display_width(m.string[: m.start(2)]) for m in labelled} == {10}
    # a continuation line (a second difference) starts at that column too; stored messages 2 further
    continued = [line for line in lines if not label.match(line)]
    indents = {(len(line) - len(line.lstrip(" ")), line.lstrip(" ")[0] in "[…") for line in continued}
    assert indents == {(10, False), (12, True)}, sorted(indents)
