"""No path a command writes (or check-description reads) can hang it: a named pipe is refused before any work.

Every case runs the installed command in a subprocess with a bounded wall time (a hang fails
the test and the process is killed), never in the test process itself.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).parent / "ccweb-conformance")
BOUND = 60
SCENARIOS_DONE = re.compile(r"\d+/\d+ scenarios")
RUN = ["run", "--in-process", "--tags", "AC-3", "--fuzz", "0"]
PROFILE = ["profile", "--sizes", "10", "--repeats", "1", "--no-reference"]
FIFO_REFUSED = "it is a named pipe (FIFO), which could block the command; name a regular file, or - for stdout"


def bounded(arguments: list[str], cwd: Path, **extra: object) -> subprocess.CompletedProcess[str]:
    """The command's outcome, or a failed test when it does not end within BOUND seconds."""
    env = {**os.environ, "TMPDIR": str(cwd)}
    try:
        return subprocess.run(
            [CLI, *arguments], cwd=cwd, capture_output=True, text=True, timeout=BOUND, env=env, check=False, **extra
        )  # type: ignore[call-overload, no-any-return]
    except subprocess.TimeoutExpired:  # subprocess.run killed it
        pytest.fail(f"{arguments} hung on a named pipe for {BOUND} s")


@pytest.mark.parametrize(
    "arguments",
    [
        [*RUN, "--json"],
        [*RUN, "--junitxml"],
        [*RUN, "--markdown"],
        [*RUN, "--cucumberjson"],
        [*PROFILE, "--svg"],
        [*PROFILE, "--json"],
        ["spec", "--output"],
        ["export", "--output"],
    ],
    ids=lambda words: " ".join(w for w in words if w.startswith("--") and w not in ("--in-process", "--tags")),
)
def test_a_named_pipe_as_an_output_path_is_a_usage_error_before_any_work(arguments: list[str], tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    done = bounded([*arguments, "pipe"], tmp_path)
    # refused up front: a run or a profile that started would have said so on stderr first
    assert (done.returncode, done.stderr) == (2, f"ccweb-conformance: error: cannot write 'pipe': {FIFO_REFUSED}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_a_socket_as_an_output_path_is_a_usage_error(tmp_path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "sock"))
        done = bounded(["spec", "--output", "sock"], tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "ccweb-conformance: error: cannot write 'sock': it is a socket, which could block the command; "
        "name a regular file, or - for stdout\n",
    )


def test_check_description_refuses_a_named_pipe_as_its_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    done = bounded(["check-description", "--file", "pipe"], tmp_path)
    assert (done.returncode, done.stderr) == (
        2,
        "ccweb-conformance: error: cannot read 'pipe': it is a named pipe (FIFO), which could block the command; "
        "name a regular file, or - for stdin\n",
    )


def test_devices_and_the_runners_own_streams_are_still_accepted(tmp_path: Path) -> None:
    assert bounded(["spec", "--output", "/dev/null"], tmp_path).returncode == 0
    piped = bounded(["spec", "--output", "/dev/stdout"], tmp_path)  # stdout is a pipe the test reads
    assert (piped.returncode, piped.stdout.startswith("# ")) == (0, True)
    described = bounded(["check-description", "--file", "/dev/stdin"], tmp_path, input="Returns the latest inputs")
    assert (described.returncode, described.stderr) == (1, "")


def in_a_process(code: str) -> str:
    """What ``code`` prints, run in its own Python within BOUND seconds (an open that blocks cannot hang the test)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"blocked for {BOUND} s")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_path_that_became_a_named_pipe_after_the_check_fails_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")  # no reader: opened non-blocking, the write fails instead of waiting
    printed = in_a_process(  # ENXIO: only a non-blocking open fails so; a blocking one waits for a reader for ever
        "from pathlib import Path\n"
        "from ccweb_conformance.reports.output import write_atomically\n"
        "try:\n"
        f"    write_atomically(Path({str(tmp_path / 'pipe')!r}), b'{{}}')\n"
        "except OSError as error:\n"
        "    print(error.errno, error.strerror)\n"
    )
    assert printed == f"{errno.ENXIO} it is a named pipe (FIFO) that nothing reads\n"


def test_a_reader_that_takes_nothing_is_given_up_within_the_bound() -> None:
    """Given up within the bound, counted in the polls that found the pipe full: each waits its 100 ms at least, so
    a writer that gives up once 0.3 s have passed makes at most 4 of them, however slow the machine."""
    printed = in_a_process(  # the read end stays open and is never read: the pipe fills
        "import os, select\n"
        "from pathlib import Path\n"
        "from ccweb_conformance.reports.output import write_special\n"
        "empty = []\n"
        "class Counted:\n"
        "    def __init__(self): self.poller = POLL()\n"
        "    def register(self, *given): self.poller.register(*given)\n"
        "    def poll(self, timeout):\n"
        "        ready = self.poller.poll(timeout)\n"
        "        empty.extend([] if ready else [timeout])\n"
        "        return ready\n"
        "POLL, select.poll = select.poll, Counted\n"
        "reading, writing = os.pipe()\n"
        "try:\n"
        "    write_special(Path(f'/dev/fd/{writing}'), b'x' * (4 << 20), seconds=0.3)\n"
        "except OSError as error:\n"
        "    print(error.errno, error.strerror, set(empty), len(empty) <= 4 or empty)\n"
    )
    assert printed == f"{errno.ETIMEDOUT} its reader took nothing for 0.3 s; given up {{100}} True\n"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="/dev/stdout as a pipe: Linux")
def test_sigterm_ends_a_run_whose_report_reader_takes_nothing(tmp_path: Path) -> None:
    """``run --json /dev/stdout | stalled-reader``: SIGTERM ends it (143) and it leaves nothing (it hung for ever)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    arguments = [CLI, "run", "--in-process", "--fuzz", "0", "--json", "/dev/stdout"]
    stderr = tmp_path / "stderr"
    with stderr.open("wb") as errors:
        runner = subprocess.Popen(arguments, cwd=tmp_path, stdout=subprocess.PIPE, stderr=errors, env=env)
        try:
            under_way = time.monotonic() + BOUND  # its first scenarios ended (the counter, past the first line
            # "testing ...: the scenarios of ..."): the report will not fit the pipe
            while not SCENARIOS_DONE.search(stderr.read_text(encoding="utf-8")) and time.monotonic() < under_way:
                time.sleep(0.1)
            runner.send_signal(signal.SIGTERM)
            code = runner.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            pytest.fail("the run ignored SIGTERM while its report's reader took nothing")
        finally:
            if runner.poll() is None:
                runner.kill()
                runner.wait(10)
            assert runner.stdout is not None
            runner.stdout.close()
    lines = stderr.read_text(encoding="utf-8").splitlines()
    assert code == 143, lines
    assert lines[-1].startswith("ccweb-conformance: interrupted by SIGTERM; "), lines
    assert list(temporary.iterdir()) == []


def _full_pipe() -> tuple[int, int]:
    """A pipe already full (64 KiB nobody reads): whatever is written next to its write end blocks."""
    reading, writing = os.pipe()
    os.set_blocking(writing, False)
    try:
        while True:
            os.write(writing, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(writing, True)
    return reading, writing


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="/dev/stdout as a pipe: Linux")
def test_sigterm_ends_a_profile_whose_stdout_reader_takes_nothing(tmp_path: Path) -> None:
    """``profile --svg /dev/stdout | stalled-reader``: SIGTERM once it has profiled ends it (143, the stalled output
    given up after the shorter bound a signal sets) and nothing left (one was alive 50 minutes after SIGTERM; then it
    ended with exit 0, as if it had passed)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    stderr = tmp_path / "stderr"
    reading, writing = _full_pipe()
    try:
        with stderr.open("wb") as errors:
            profiler = subprocess.Popen([CLI, *PROFILE, "--svg", "/dev/stdout"], stdout=writing, stderr=errors, env=env)
        os.close(writing)
        writing = -1
        try:
            under_way = time.monotonic() + BOUND  # it has profiled: its output is what blocks now
            while "profile: size 1/1" not in stderr.read_text(encoding="utf-8") and time.monotonic() < under_way:
                time.sleep(0.1)
            profiler.send_signal(signal.SIGTERM)
            code = profiler.wait(timeout=BOUND)
        except subprocess.TimeoutExpired:
            pytest.fail("the profile ignored SIGTERM while its stdout's reader took nothing")
        finally:
            if profiler.poll() is None:
                profiler.kill()
                profiler.wait(10)
    finally:
        os.close(reading)
        if writing != -1:
            os.close(writing)
    lines = stderr.read_text(encoding="utf-8").splitlines()
    interrupted = "ccweb-conformance: profile interrupted by SIGTERM; servers stopped, files removed"
    assert (code, lines[-1]) == (143, interrupted)
    given_up = "ccweb-conformance: error: could not write the SVG report '/dev/stdout': [Errno 110] its reader took"
    assert lines[-2] == f"{given_up} nothing for 1 s; given up"  # AFTER_SIGNAL_SECONDS, not the usual bound
    assert list(temporary.iterdir()) == []
