"""Reports reach their path whole or not at all; one path per report; ``-`` is stdout."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.reports.output import emit, write_atomically


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


def test_dash_is_stdout_and_secrets_are_scrubbed(tmp_path: Path):
    out = io.BytesIO()
    emit(lambda text, path: path.write_text(text, encoding="utf-8"), "token s3cret!", Path("-"), ["s3cret!"], out)
    assert out.getvalue() == b"token ***"
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
