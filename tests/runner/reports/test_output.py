"""Reports reach their path whole or not at all; one path per report; ``-`` is stdout."""

from __future__ import annotations

import errno
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.reports.output import place, write_atomically


def _full_disk(fd: int) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_leaves_no_partial_file_and_keeps_the_old_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    target = tmp_path / "report.json"
    target.write_text("old, whole\n", encoding="utf-8")
    monkeypatch.setattr(os, "fsync", _full_disk)
    with pytest.raises(OSError, match="No space left on device"):
        write_atomically(target, b"x" * 65_536)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    assert target.read_text(encoding="utf-8") == "old, whole\n"


def test_a_new_report_replaces_the_target_with_the_usual_permissions(tmp_path: Path):
    target = tmp_path / "report.json"
    write_atomically(target, b"{}\n")
    assert target.read_bytes() == b"{}\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_dash_is_stdout_written_as_given(tmp_path: Path):
    out = io.BytesIO()
    place("token s3cret! \udc80", Path("-"), out)
    assert out.getvalue() == b"token s3cret! \\udc80"  # redacting is the model's; a lone surrogate escaped
    assert list(tmp_path.iterdir()) == []


def test_a_report_that_cannot_be_written_run_exits_2_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "fsync", _full_disk)
    assert main(["run", "--in-process", "--tags", "TOOL-1", "--fuzz", "0", "--json", "report.json"]) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        "ccweb-conformance: error: could not write the JSON report 'report.json': [Errno 28] No space left on device\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--json", "r", "--junitxml", "r", "--markdown", "r"],
            "--junitxml and --json both write 'r'; give each its own",
        ),
        (["--json", "r", "--markdown", "./x/../r"], "--json and --markdown both write 'x/../r'; give each its own"),
        (["--cucumberjson", "/dev/null/r", "--markdown", "r"], "cannot write '/dev/null/r': '/dev/null' is not a folder"),  # noqa: E501
    ],
)
def test_one_path_per_report(
    arguments: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--in-process", *arguments]) == 2
    assert capsys.readouterr() == ("", f"ccweb-conformance: error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def _sticky_folder_with_a_root_file(name: str) -> tuple[Path, Path]:
    """A folder like /tmp (mode 1777, root's) holding ``name``: root's file, 0666, that any user may write."""
    import tempfile  # noqa: PLC0415

    folder = Path(tempfile.mkdtemp(prefix="ccweb-test-sticky-"))
    folder.chmod(0o1777)
    target = folder / name
    target.write_text("the old report\n", encoding="utf-8")
    target.chmod(0o666)
    return folder, target


def test_another_users_0666_file_in_a_sticky_folder_is_written_in_place() -> None:
    """Where ``>>`` succeeds the runner does too: the rename is not allowed there (only the file's owner may
    replace it), the file is writable, so the report is written into it, same file, no staged copy left."""
    import json  # noqa: PLC0415
    import shutil  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from other_user import as_other_user  # noqa: PLC0415

    prefix = as_other_user()
    folder, target = _sticky_folder_with_a_root_file("report.json")
    before = target.stat()
    cli = str(Path(sys.executable).parent / "ccweb-conformance")
    try:
        shell = subprocess.run(
            [*prefix, "sh", "-c", f"echo appended >> {target}"], capture_output=True, text=True, timeout=30,
            check=False,
        )  # fmt: skip
        done = subprocess.run(
            [*prefix, cli, "run", "--in-process", "--tags", "AC-3", "--fuzz", "0", "--json", str(target)],
            capture_output=True, text=True, timeout=120, check=False, cwd=folder,
            env={**os.environ, "TMPDIR": str(folder), "HOME": str(folder)},
        )  # fmt: skip
        after = target.stat()
        report = json.loads(target.read_text(encoding="utf-8"))
        left = sorted(p.name for p in folder.iterdir())
    finally:
        shutil.rmtree(folder)
    assert (shell.returncode, done.returncode, done.stderr.splitlines()[-1]) == (
        0, 0, "ccweb-conformance: 5/5 scenarios"
    ), done.stderr  # fmt: skip
    assert (report["counts"]["passed"], left) == (5, ["report.json"])
    assert (after.st_ino, after.st_uid, after.st_mode & 0o7777) == (before.st_ino, 0, 0o666)


def test_a_report_the_rename_may_not_replace_and_the_runner_may_not_write_is_still_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")

    def not_allowed(source: object, destination: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "replace", not_allowed)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(PermissionError):
        write_atomically(target, b"new")
    assert (target.read_text(encoding="utf-8"), sorted(p.name for p in tmp_path.iterdir())) == ("old", ["report.json"])


def test_a_link_to_the_runners_own_redirected_stdout_is_written_through_it_and_the_link_stays(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
):
    """``--json /dev/stdout > report.json``: before, the rename replaced the link itself (``/dev/stdout``, as root)."""
    own = os.fstat(1)
    if not stat.S_ISREG(own.st_mode):
        pytest.skip("stdout is not a regular file here (pytest's -s)")
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    place('{"ok": true}\n', link)
    write_atomically(link, b"second\n")
    assert (os.readlink(link), sorted(p.name for p in tmp_path.iterdir())) == ("/proc/self/fd/1", ["stdout"])
    assert capfd.readouterr().out == '{"ok": true}\nsecond\n'


def test_a_report_path_that_is_a_link_replaces_the_file_it_leads_to_and_the_link_stays(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "report.json").write_bytes(b"old\n")
    link = tmp_path / "report.json"
    link.symlink_to("real/report.json")
    write_atomically(link, b"new\n")
    assert (os.readlink(link), (tmp_path / "real" / "report.json").read_bytes()) == ("real/report.json", b"new\n")
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["report.json"]
    dangling = tmp_path / "new.json"
    dangling.symlink_to("real/new.json")
    write_atomically(dangling, b"first\n")
    assert (os.readlink(dangling), (tmp_path / "real" / "new.json").read_bytes()) == ("real/new.json", b"first\n")


def test_spec_output_to_dev_stdout_redirected_to_a_file_writes_the_file_and_leaves_the_link(tmp_path: Path):
    """The whole command, its stdout a regular file, through a link to its own stdout as ``/dev/stdout`` is."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    with (tmp_path / "spec.md").open("wb") as out:
        done = subprocess.run(
            [sys.executable, "-m", "ccweb_conformance.cli", "spec", "--output", str(link)],
            stdout=out, stderr=subprocess.PIPE, timeout=120, check=False,
        )
    assert (done.returncode, done.stderr, os.readlink(link)) == (0, b"", "/proc/self/fd/1")
    written = (tmp_path / "spec.md").read_text(encoding="utf-8")
    assert written == (Path(__file__).parents[3] / "docs" / "SPEC.md").read_text(encoding="utf-8")
