"""An entry whose name is not UTF-8, created and removed during a call (issue 45): the kit's own words, RO-2.

watchfiles stops at such a name with its own error (``Unable to decode path ...``), and its watch raises it
on every read after; the watcher names the entry, escaped, and watches on.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

from ccweb_conformance.checks.watch import UNDECODABLE, EntryWatch, Seen
from ccweb_conformance.i18n import messages

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the watch is inotify's on Linux only, and these tests read its words"
)

FAKE = Path(__file__).parents[1] / "fakes" / "suite_stdio.py"
WORDS = "\\xFF.tmp, an entry whose name is not UTF-8 (bytes that are not UTF-8 shown as \\xNN), created or removed"
WORDS_ZH = "\\xFF.tmp，名称不是 UTF-8 的条目（其中非 UTF-8 的字节以 \\xNN 表示），被新建或删除"  # noqa: RUF001
SCENARIO = "A successful call changes nothing"


def _come_and_go(folder: Path, name: bytes) -> None:
    path = os.path.join(os.fsencode(folder), name)
    with open(path, "wb"):
        pass
    os.unlink(path)


def test_the_entry_is_named_escaped_and_the_watch_goes_on(tmp_path: Path) -> None:
    watch = EntryWatch(tmp_path)
    try:
        _come_and_go(tmp_path, b"\xff.tmp")
        assert watch.foreign(set()) == [Seen("\\xFF.tmp", (UNDECODABLE,))]
        (tmp_path / "after.lock").write_bytes(b"")
        assert watch.foreign(set()) == [Seen("\\xFF.tmp", (UNDECODABLE,)), Seen("after.lock", ("created",))]
        assert watch.method == "inotify; started again after a name that is not UTF-8"
    finally:
        watch.close()
    assert messages("en").words(Seen("\\xFF.tmp", (UNDECODABLE,)).phrase) == WORDS
    assert messages("zh-CN").words(Seen("\\xFF.tmp", (UNDECODABLE,)).phrase) == WORDS_ZH


def test_a_server_making_such_an_entry_fails_ro_2_in_the_kits_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ccweb_conformance.cli import main  # noqa: PLC0415 - the whole runner, for this test only

    monkeypatch.setenv("SUITE_FAKE_STATE", str(tmp_path))
    monkeypatch.delenv("CCWEB_SESSION_ID", raising=False)
    report = tmp_path / "report.json"
    command = shlex.join([sys.executable, str(FAKE), "1=undecodable"])
    name = f"test_{SCENARIO.lower().replace(' ', '_')}"
    code = main(["run", "--stdio", command, "--protocol", "legacy", "-k", name, "--json", str(report)])
    capsys.readouterr()
    assert code == 1
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    failed = [(s["name"], s["requirements"], s["failedRequirements"]) for s in scenarios if s["status"] == "failed"]
    assert failed == [(SCENARIO, ["RO-1", "RO-2"], ["RO-2"])]
    message = scenarios[0]["message"]
    assert (
        "\nRO-2: entries were created, changed or removed in the sessions directory during the calls (seen through "
        "inotify; started again after a name that is not UTF-8)\n"
    ) in message
    assert f"\n  actual:   {WORDS}\n" in message
    assert "Unable to decode" not in message
