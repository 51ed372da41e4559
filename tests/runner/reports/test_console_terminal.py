"""The console a pytest user expects (issue 35, 5), as an 80-column terminal shows it: a first line at once, the
live counter with its failures and through the fuzz phase, no line wider than the terminal (so it never cuts a
word), the totals line last. The run happens in a pseudo-terminal; a CI log (no terminal) gets the first line too.
"""

from __future__ import annotations

import os
import pty
import re
import select
import shlex
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import REPO

from ccweb_conformance.textwidth import display_width

pytestmark = pytest.mark.skipif(not hasattr(pty, "fork"), reason="needs a pseudo-terminal")
RUN_PY = REPO / "tests" / "mutants" / "run.py"
FAILING = [sys.executable, str(RUN_PY), "mutant", "utf16_units", "run", "--in-process", "--tags", "AC-7", "--fuzz", "5"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WAIT_S = 180.0
COLUMNS = 80
FIRST_LINE = (
    "ccweb-conformance: testing the in-process reference server (selection: --tags AC-7): the scenarios of "
    "ccweb_list_user_inputs 1.0.0"
)


def in_terminal(argv: list[str], cwd: Path) -> tuple[int, str]:
    """(exit status, everything written) of ``argv`` run on an 80x40 pseudo-terminal (stdout and stderr)."""
    import fcntl  # noqa: PLC0415 (POSIX only)
    import termios  # noqa: PLC0415

    env = os.environ | {"COLUMNS": str(COLUMNS), "LINES": "40", "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: its terminal is the pty
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, COLUMNS, 0, 0))
    chunks: list[bytes] = []
    deadline = time.monotonic() + WAIT_S
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        else:
            os.kill(pid, 9)
            pytest.fail(f"the run did not end within {WAIT_S:.0f} s")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str]:
    """A failing run (the UTF-16 mutant, AC-7 and a short fuzz phase) on an 80-column terminal."""
    return in_terminal(FAILING, tmp_path_factory.mktemp("terminal"))


def screen_lines(text: str) -> list[str]:
    """The lines as the terminal keeps them: a ``\\r`` rewrites its line, colour codes take no column."""
    return [ANSI.sub("", line.rsplit("\r", 1)[-1]) for line in text.split("\n")]


def test_the_first_line_comes_first(failing: tuple[int, str]) -> None:
    code, text = failing
    assert code == 1, text
    first = text.split("\n")[:2]  # wrapped at 80 columns, at a space, the rest two columns in
    assert first[0].startswith("ccweb-conformance: testing the in-process reference server")
    assert first[1].startswith("  ")
    assert " ".join(line.strip() for line in first) == FIRST_LINE


def test_the_live_counter_counts_failures_and_the_fuzz_phase(failing: tuple[int, str]) -> None:
    _, text = failing
    counters = re.findall(r"\r  (\d+/\d+ [a-z ]+?(?:, \d+ failed)?)(?=\r|\n)", text)
    scenarios = [c for c in counters if c.endswith(("scenarios", "failed")) and "fuzz" not in c]
    assert scenarios[0] == "0/13 scenarios"
    assert scenarios[-1] == "13/13 scenarios, 9 failed"
    assert any(c.endswith("failed") for c in scenarios[:-1])  # shown as they happen, not only at the end
    fuzz = [c for c in counters if "fuzz calls" in c]
    assert fuzz and fuzz[0].startswith("1/68 fuzz calls")
    numbers = [int(c.split("/")[0]) for c in fuzz]
    assert numbers == sorted(numbers) and len(set(numbers)) > 10


def test_no_line_is_wider_than_the_terminal(failing: tuple[int, str]) -> None:
    """So the terminal never cuts a word; only a word wider than the terminal (a long -k value) stays whole."""
    lines = screen_lines(failing[1])
    wide = [line for line in lines if display_width(line) > COLUMNS]
    assert all(len(shlex.split(line)) == 1 for line in wide), wide  # one shell word
    assert len(wide) <= 2  # the -k of the two outline examples whose names differ only in their example
    assert max(display_width(line) for line in lines if line not in wide) >= COLUMNS - 10  # long lines were wrapped


def test_a_wrapped_rerun_command_is_still_one_command(failing: tuple[int, str]) -> None:
    lines = screen_lines(failing[1])
    start = next(i for i, line in enumerate(lines) if line.startswith("    rerun        ccweb-conformance run"))
    command = [lines[start][17:]]
    while command[-1].endswith(" \\"):
        command.append(lines[start + len(command)].strip())
    joined = " ".join(part.removesuffix(" \\") for part in command)
    words = shlex.split(joined)
    assert words[:4] == ["ccweb-conformance", "run", "--in-process", "-k"] and len(words) == 5, command
    assert len(command) >= 2, command  # it was wrapped


def test_the_totals_line_is_last(failing: tuple[int, str]) -> None:
    lines = [line for line in screen_lines(failing[1]) if line.strip()]
    assert re.fullmatch(r"4 passed, 10 failed in \d+\.\d\ds", lines[-1]), lines[-3:]


def test_a_log_gets_the_first_line_too(tmp_path: Path) -> None:
    """Not a terminal (a CI log): the first line still comes first, and nothing is wrapped."""
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ccweb-conformance")), "run", "--in-process", "--tags", "AC-7",
         "--fuzz", "0"],
        capture_output=True, text=True, timeout=WAIT_S, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == FIRST_LINE
