"""The runner's own environment is the runner's: a fixture it cannot write stops the run with exit 2."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.errors import environment_problem
from ccweb_conformance.fixtures.conversations import ConversationFiles

STARTED = "ccweb-conformance: testing "
"""The first line of a run (what it starts), said before anything can fail."""


def said_by_the_run(line: str) -> bool:
    """Not a progress line, nor the first line naming what starts."""
    return not line.endswith(" scenarios") and not line.startswith(STARTED)


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        (errno.ENOSPC, "No space left on device"),
        (errno.EROFS, "Read-only file system"),
        (errno.EACCES, "Permission denied"),
    ],
)
def test_a_fixture_the_runner_cannot_write_exits_2_with_one_line(
    number: int, reason: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full(self: ConversationFiles, conversation_id: str, data: bytes) -> Path:
        raise OSError(number, reason, str(self.path_of(conversation_id)))

    monkeypatch.setattr(ConversationFiles, "write_bytes", full)
    assert main(["run", "--in-process", "--tags", "AC-3", "--fuzz", "0"]) == 2
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if said_by_the_run(line)]  # not the progress lines
    assert len(lines) == 1
    assert lines[0].startswith(f"ccweb-conformance: error: the runner could not write its fixtures ([Errno {number}] ")
    assert lines[0].endswith(
        "this is the runner's environment, not the implementation: free space, or give the runner "
        "a writable sessions directory"
    )
    assert (reason in lines[0], "FAIL" in out) == (True, False)


def test_only_the_runners_file_system_errors_are_faults() -> None:
    assert environment_problem(OSError(errno.ENOSPC, "No space left on device", "/x/a.json")) == (
        "the runner could not write its fixtures ([Errno 28] No space left on device: /x/a.json); this is the "
        "runner's environment, not the implementation: free space, or give the runner a writable sessions directory"
    )
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system")
        except OSError as inner:
            raise RuntimeError("the step failed") from inner
    except RuntimeError as outer:
        assert (environment_problem(outer) or "").startswith("the runner could not write its fixtures ([Errno 30] ")
    assert environment_problem(OSError(errno.EPIPE, "Broken pipe")) is None
    assert environment_problem(AssertionError("items differ")) is None
    assert environment_problem(None) is None


def test_two_runs_sharing_one_sessions_directory_both_pass(tmp_path: Path) -> None:
    """Each run judges only its own conversations, beside another run and a cc-web saving its own (DESIGN 4)."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    shared = tmp_path / "sessions"
    shared.mkdir()
    (shared / "someone-elses-conversation.json").write_text(json.dumps({"messages": []}), encoding="utf-8")
    # the bundled reference's own command (this interpreter, -m): each run forks its servers from one process
    server = f"{sys.executable} -m ccweb_reference.cli --sessions-dir {shared}"
    run = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--stdio", server, "--sessions-dir", str(shared)]
    commands = [[*run, "--tags", "AC-9,AC-3", "--fuzz", "0", "--json", str(tmp_path / f"run{n}.json")] for n in (1, 2)]
    stop = threading.Event()

    def live_cc_web() -> None:  # saves its own conversation now and then, through a temporary file
        while not stop.wait(0.02):
            temporary = shared / "someone-elses-conversation.json.tmp"
            temporary.write_text(json.dumps({"messages": [], "updated": time.time()}), encoding="utf-8")
            temporary.replace(shared / "someone-elses-conversation.json")

    writer = threading.Thread(target=live_cc_web, daemon=True)
    writer.start()
    runs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for c in commands]
    deadline = time.monotonic() + 180  # bounded: the runs hung here once (an inotify read that never ended)
    try:
        outputs = [run.communicate(timeout=max(1.0, deadline - time.monotonic()))[0] for run in runs]
    finally:
        stop.set()
        writer.join(5)
        for run in runs:  # only after a timeout: stop them, so the failure names the hang and leaves nothing behind
            if run.poll() is None:
                run.kill()
                run.communicate(timeout=10)
    assert [run.returncode for run in runs] == [0, 0], "\n".join(o[-3000:] for o in outputs)
    for n in (1, 2):
        report = json.loads((tmp_path / f"run{n}.json").read_text(encoding="utf-8"))
        assert report["counts"]["failed"] == 0
    assert sorted(p.name for p in shared.iterdir()) == ["someone-elses-conversation.json"]


NOT_THE_IMPLEMENTATION = "this is the runner's environment, not the implementation: "


def _installed_cli() -> str:
    import sys  # noqa: PLC0415

    return str(Path(sys.executable).parent / "ccweb-conformance")


@pytest.mark.parametrize("command", [["list"], ["run", "--in-process", "--tags", "AC-3"], ["check-description", "x"]])
def test_a_deleted_working_directory_is_one_line_and_exit_2(command: list[str], tmp_path: Path) -> None:
    import subprocess  # noqa: PLC0415

    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "{_installed_cli()}" "$@"'
    done = subprocess.run(
        ["sh", "-c", script, "sh", *command], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stderr) == (
        2,
        "ccweb-conformance: error: the working directory no longer exists (No such file or directory); "
        f"{NOT_THE_IMPLEMENTATION}run it from a folder that exists\n",
    )


def _own_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import tempfile  # noqa: PLC0415

    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_no_thread_left_while_starting_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import threading  # noqa: PLC0415

    folder = _own_temporary_folder(tmp_path, monkeypatch)

    def no_thread(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    assert main(["run", "--tags", "AC-3", "--fuzz", "0"]) == 2  # the bundled reference over stdio
    lines = [line for line in capsys.readouterr().err.splitlines() if said_by_the_run(line)]
    assert lines == [
        "ccweb-conformance: error: the runner could not start a thread (can't start new thread); "
        f"{NOT_THE_IMPLEMENTATION}raise the process limit (ulimit -u) or free memory"
    ]
    assert list(folder.iterdir()) == []


WITHOUT_THE_FLOOR = (
    "import sys\n"
    "from ccweb_conformance.transport import limits\n"
    "limits.ensure_descriptors = lambda floor=0: None\n"
    "from ccweb_conformance.cli import main\n"
    "sys.exit(main())\n"
)


def test_no_file_descriptor_left_while_starting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """``ulimit -n 12``: the server's pipes cannot be made (it said "cannot start '...python3'", blaming the target).

    16 until the runner's pytest session stopped capturing output: its capture files took four descriptors.

    The floor checked first (tests/runner/cli/test_descriptor_limit.py) now refuses 16 up front; it is switched
    off here, so the runner's own EMFILE once it has started (a limit that other processes share) is still seen.
    """
    import os  # noqa: PLC0415
    import resource  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    folder = tmp_path / "tmp"
    folder.mkdir()

    def few_descriptors() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (8, 8))

    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_THE_FLOOR, "run", "--tags", "AC-3", "--fuzz", "0"],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(folder)}, preexec_fn=few_descriptors,
    )
    lines = [line for line in done.stderr.splitlines() if said_by_the_run(line)]
    assert done.returncode == 2, done.stderr
    assert lines == [
        "ccweb-conformance: error: the runner ran out of file descriptors ([Errno 24] Too many open files); "
        f"{NOT_THE_IMPLEMENTATION}raise the limit (ulimit -n)"
    ]
    assert list(folder.iterdir()) == []


def test_a_full_temporary_folder_while_profiling_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``profile`` into a full TMPDIR ended after minutes with a traceback (ENOSPC in fixtures/conversations.py)."""
    folder = _own_temporary_folder(tmp_path, monkeypatch)

    def full(self: ConversationFiles, conversation_id: str, data: bytes) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path_of(conversation_id)))

    monkeypatch.setattr(ConversationFiles, "write_bytes", full)
    assert main(["profile", "--sizes", "10", "--repeats", "1", "--no-reference"]) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("ccweb-conformance: error")]
    assert len(lines) == 1
    assert lines[0].startswith(
        "ccweb-conformance: error: the runner could not write its fixtures ([Errno 28] No space left on device: "
    )
    assert lines[0].endswith(f"{NOT_THE_IMPLEMENTATION}free space, or give the runner a writable sessions directory")
    assert list(folder.iterdir()) == []



def _as_another_user() -> list[str]:
    """The command prefix that runs a program as an unprivileged user (nobody), or skips the test."""
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415

    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no other user to run as")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _open_folder() -> Path:
    """A folder in /tmp every user can reach (pytest's tmp_path is the runner's alone)."""
    import tempfile  # noqa: PLC0415

    folder = Path(tempfile.mkdtemp(prefix="ccweb-test-shared-"))
    folder.chmod(0o755)
    return folder


def test_a_sessions_folder_the_runner_cannot_list_is_one_line_and_exit_2_not_ro2() -> None:
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    prefix = _as_another_user()
    folder = _open_folder()
    sessions = folder / "sessions"
    sessions.mkdir(mode=0o333)  # write-only: a drop box the runner may write into but not list
    sessions.chmod(0o333)
    try:
        command = [
            sys.executable,
            "-m",
            "ccweb_conformance.cli",
            "run",
            "--in-process",
            "--sessions-dir",
            str(sessions),
        ]
        done = subprocess.run(
            [*prefix, *command, "--sessions-dir", str(sessions), "--tags", "RO-2", "--fuzz", "0"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=folder,
            env={**os.environ, "HOME": str(folder)},
        )
    finally:
        sessions.chmod(0o755)
        shutil.rmtree(folder)
    lines = [line for line in done.stderr.splitlines() if said_by_the_run(line)]
    assert (done.returncode, "FAIL" in done.stdout, len(lines)) == (2, False, 1)
    assert lines[0] == (
        f"ccweb-conformance: error: the runner cannot list the sessions directory ([Errno 13] Permission denied: "
        f"{sessions}); {NOT_THE_IMPLEMENTATION}give the runner read and search permission on it (the read-only "
        "checks list it)"
    )


def test_under_umask_077_a_server_running_as_another_user_reads_the_fixtures() -> None:
    """cc-web's two-process shape: the server runs as its own user; the runner's umask must not hide the files."""
    import os  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    if os.geteuid() != 0:
        pytest.skip("needs root to run the server as another user")
    server_as = " ".join(_as_another_user())
    folder = _open_folder()
    sessions = folder / "sessions"
    sessions.mkdir()
    sessions.chmod(0o777)  # cc-web's folder: both users write there
    run = [sys.executable, "-m", "ccweb_conformance.cli", "run", "--fuzz", "0", "--tags", "STO-1,RO-1,RO-2"]
    # Not the permission scenario: as root the runner starts its server without root's power over file modes,
    # and then setpriv's nobody cannot reach this venv's interpreter under /root (0700); it is tested on its own.
    run += ["-k", "not permission"]
    # bench/fast_server.py: the reference's own store and call_tool without the SDK (about 0.15 s of CPU a start, not
    # 1 s); it reads the folder the runner passes as CC_WEB_SESSIONS_DIR, as the nobody user it is started as
    fast_server = Path(__file__).resolve().parents[3] / "bench" / "fast_server.py"
    server = f"{server_as} {sys.executable} {fast_server}"
    report = folder / "report.json"
    try:
        done = subprocess.run(
            [*run, "--stdio", server, "--sessions-dir", str(sessions), "--json", str(report)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            umask=0o077,
        )
        failed = [
            r["id"] for r in json.loads(report.read_text(encoding="utf-8"))["requirements"] if r["status"] == "failed"
        ]
    finally:
        shutil.rmtree(folder)
    assert (done.returncode, failed) == (0, []), done.stdout[-3000:]
