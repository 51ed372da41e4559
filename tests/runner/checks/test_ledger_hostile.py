"""The read-only audit against a server that swaps a file for a FIFO between the audit's look and its read.

The audit looks at an entry (``lstat``: a regular file) and then reads its bytes; a FIFO put in its place in
between had the read wait for a writer that never comes: the run hung.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from runner.fixtures.hostile import finishes, release, swap_for_fifo

from ccweb_conformance.checks.ledger import Fingerprint, fingerprint


def _swapped_after_lstat(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first ``lstat`` of ``path`` sees the file; right after it, the file is a FIFO."""
    real: Callable[..., os.stat_result] = os.lstat
    done: list[bool] = []

    def lstat(name: str | os.PathLike[str], *args: object, **kwargs: object) -> os.stat_result:
        info = real(name, *args, **kwargs)
        if os.fspath(name) == os.fspath(path) and not done:
            done.append(True)
            swap_for_fifo(path)
        return info

    monkeypatch.setattr(os, "lstat", lstat)


def test_a_file_swapped_for_a_fifo_after_the_look_is_not_read_nor_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "conversation.json"
    path.write_bytes(b"{}")
    _swapped_after_lstat(path, monkeypatch)
    finished, found = finishes(lambda: fingerprint(path))
    release(path)
    assert finished
    assert isinstance(found, Fingerprint)
    now = os.stat(path, follow_symlinks=False)
    assert found == Fingerprint("other", 0, now.st_mtime_ns, now.st_ctime_ns, now.st_ino, "")
