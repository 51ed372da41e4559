"""The runner's own environment is the runner's: a fixture it cannot write stops the run with exit 2."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from ccweb_conformance.checks.attribution import environment_fault
from ccweb_conformance.cli import main
from ccweb_conformance.fixtures.conversations import ConversationFiles


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
    lines = [line for line in err.splitlines() if not line.endswith(" scenarios")]  # not the progress lines
    assert len(lines) == 1
    assert lines[0].startswith(f"ccweb-conformance: error: the runner could not write its fixtures ([Errno {number}] ")
    assert lines[0].endswith(
        "this is the runner's environment, not the implementation: free space, or give the runner "
        "a writable sessions directory"
    )
    assert (reason in lines[0], "FAIL" in out) == (True, False)


def test_only_the_runners_file_system_errors_are_faults() -> None:
    assert environment_fault(OSError(errno.ENOSPC, "No space left on device", "/x/a.json")) == (
        "the runner could not write its fixtures ([Errno 28] No space left on device: /x/a.json); this is the "
        "runner's environment, not the implementation: free space, or give the runner a writable sessions directory"
    )
    try:
        try:
            raise OSError(errno.EROFS, "Read-only file system")
        except OSError as inner:
            raise RuntimeError("the step failed") from inner
    except RuntimeError as outer:
        assert (environment_fault(outer) or "").startswith("the runner could not write its fixtures ([Errno 30] ")
    assert environment_fault(OSError(errno.EPIPE, "Broken pipe")) is None
    assert environment_fault(AssertionError("items differ")) is None
    assert environment_fault(None) is None


def test_two_runs_sharing_one_sessions_directory_both_pass(tmp_path: Path) -> None:
    """Each run judges only its own conversations, beside another run and a cc-web saving its own (DESIGN 4)."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import threading  # noqa: PLC0415
    import time  # noqa: PLC0415

    shared = tmp_path / "sessions"
    shared.mkdir()
    (shared / "someone-elses-conversation.json").write_text(json.dumps({"messages": []}), encoding="utf-8")
    server = f"{Path(sys.executable).parent / 'ccweb-reference'} --sessions-dir {shared}"
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
