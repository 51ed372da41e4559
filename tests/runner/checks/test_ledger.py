"""The whole-run audit (RO-1, RO-2): names, and the contents of every file the runner wrote."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from ccweb_conformance.checks.ledger import Audit, Fingerprint, SessionsLedger, changes, fingerprint, listing
from ccweb_conformance.checks.watch import Seen
from ccweb_conformance.fixtures.conversations import ConversationFiles, cc_web_session, session_bytes


def _ledger_with_one_file(tmp_path: Path, settle_s: float = 0.0) -> tuple[SessionsLedger, ConversationFiles, Path]:
    ledger = SessionsLedger(tmp_path, settle_s=settle_s)
    files = ConversationFiles(tmp_path, "ccwk-test-001")
    ledger.register(files)
    conversation_id = files.new_id("alpha")
    path = files.write_session(conversation_id, cc_web_session(conversation_id, []))
    ledger.retire(files)
    return ledger, files, path


def test_an_untouched_directory_is_clean_and_the_files_go_after_the_audit(tmp_path: Path) -> None:
    ledger, _, path = _ledger_with_one_file(tmp_path)
    assert ledger.final_audit().clean
    ledger.remove_retired()
    assert os.listdir(tmp_path) == []
    assert not path.exists()


def test_a_rewrite_after_the_scenario_is_named_with_both_fingerprints(tmp_path: Path) -> None:
    ledger, _, path = _ledger_with_one_file(tmp_path)
    before = fingerprint(path)
    path.write_bytes(path.read_bytes())  # the same bytes: only the times move
    audit = ledger.final_audit()
    assert audit.extra == () and audit.missing == ()
    assert audit.changed == (f"{path.name} (when its scenario ended: {before}; now: {fingerprint(path)})",)
    assert audit.describe().startswith(f"files changed after the scenario that wrote them ended (RO-1): {path.name}")


def test_the_final_audit_waits_for_the_settle_delay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger, _, _ = _ledger_with_one_file(tmp_path, settle_s=0.3)
    slept: list[float] = []
    sleep, this_thread = time.sleep, threading.get_ident()

    def counted(seconds: float) -> None:
        if threading.get_ident() == this_thread:  # not the test session's own threads
            slept.append(seconds)
        sleep(seconds)

    monkeypatch.setattr(time, "sleep", counted)
    started = time.monotonic()
    assert ledger.final_audit().clean
    assert time.monotonic() - started >= 0.25
    assert len(slept) == 1 and 0 < slept[0] <= 0.3  # one wait, for what is left of the delay, never more


def test_an_entry_of_the_server_and_a_lost_file_are_named(tmp_path: Path) -> None:
    ledger, _, path = _ledger_with_one_file(tmp_path)
    (tmp_path / f"{path.name}.lock").write_text("", encoding="utf-8")
    path.unlink()
    audit = ledger.final_audit()
    assert audit.extra == (f"{path.name}.lock",)
    assert audit.missing == (path.name,)
    assert audit.changed == ()


def test_session_bytes_are_raw_utf8_in_both_json_stringify_layouts() -> None:
    session = {"title": "中文 😀", "messages": [], "x": {}, "lone": "\ud800"}
    assert session_bytes(session) == (
        '{\n  "title": "中文 😀",\n  "messages": [],\n  "x": {},\n  "lone": "\\ud800"\n}'.encode()
    )
    assert session_bytes(session, compact=True) == '{"title":"中文 😀","messages":[],"x":{},"lone":"\\ud800"}'.encode()


def test_moved_names_each_entry_whose_fingerprint_changed_with_both(tmp_path: Path) -> None:
    from ccweb_conformance.checks.ledger import fingerprints, moved, runner_writing  # noqa: PLC0415

    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "b.json").write_text("{}", encoding="utf-8")
    entries = [tmp_path / "a.json", tmp_path / "b.json"]
    before = fingerprints(tmp_path, entries)
    os.utime(tmp_path / "b.json", ns=(1, 1))
    after = fingerprints(tmp_path, entries)
    changed = f"changed: {changes(before['b.json'], after['b.json'])}"
    assert moved(before, after) == {"b.json": f"{changed}; before: {before['b.json']}; after: {after['b.json']}"}
    assert moved(before, before) == {}
    assert runner_writing() is False


def test_in_a_directory_not_the_runners_only_entries_named_after_its_ids_are_judged(tmp_path: Path) -> None:
    ledger = SessionsLedger(tmp_path, settle_s=0.0, own_prefix="9dc48383-dc34")
    (tmp_path / "a1b2c3d4-0000-4000-8000-000000000000.json").write_text("{}", encoding="utf-8")  # the owner's
    (tmp_path / "9dc48383-dc34-4000-8000-000000000000.json.lock").write_text("", encoding="utf-8")
    (tmp_path / "..9dc48383-dc34-001-dots").mkdir()
    assert ledger.audit().extra == ("..9dc48383-dc34-001-dots", "9dc48383-dc34-4000-8000-000000000000.json.lock")
    assert ledger.judged("9dc48383-dc34-001-archive/x.json") and not ledger.judged("other/9dc48383-dc34-x")


def test_an_entry_that_lived_only_during_the_watch_is_named(tmp_path: Path) -> None:
    from ccweb_conformance.checks.watch import FOLDER_TIME, EntryWatch  # noqa: PLC0415

    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    watch = EntryWatch(tmp_path)
    try:
        (tmp_path / "a.json.lock").write_text("1", encoding="utf-8")
        (tmp_path / "a.json.lock").unlink()
        found, method = watch.foreign({"a.json"}), watch.method
    finally:
        watch.close()
    if method == "inotify":
        events = ("created", "removed") if len(found[0].events) == 2 else ("created", "changed", "removed")
        assert found == [Seen("a.json.lock", events)]
        assert [str(s) for s in found] == [f"a.json.lock ({', '.join(events)})"]
    else:
        assert found == [Seen(".", (FOLDER_TIME,))]


def test_in_a_shared_directory_the_owners_entries_may_go_and_any_named_after_an_id_is_judged(tmp_path: Path) -> None:
    (tmp_path / "a1b2c3d4-0000-4000-8000-000000000000.json.tmp").write_text("{}", encoding="utf-8")  # the owner's
    ledger = SessionsLedger(tmp_path, settle_s=0.0, own_prefix="9dc48383-dc34")
    files = ConversationFiles(tmp_path, "9dc48383-dc34")
    ledger.register(files)
    conversation_id = files.new_id("Alpha")  # capitals in the alias: an upper-case ID
    path = files.write_session(conversation_id, cc_web_session(conversation_id, []))
    (tmp_path / "a1b2c3d4-0000-4000-8000-000000000000.json.tmp").unlink()  # the owner saved: not the server's doing
    (tmp_path / f"{conversation_id}.json.lock").write_text("", encoding="utf-8")
    (tmp_path / f".{conversation_id.lower()}.read-cache").write_text("", encoding="utf-8")
    path.unlink()
    assert conversation_id == conversation_id.upper()
    assert ledger.audit() == Audit(
        (f".{conversation_id.lower()}.read-cache", f"{conversation_id}.json.lock"), (f"{conversation_id}.json",)
    )
    files.remove_all()


class _EndlessEvents:
    """A watcher beside a live writer: every read returns a change, until ``quiet``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.quiet = False

    def watch(self, debounce_ms: int, step_ms: int, timeout_ms: int, stop: object) -> object:
        time.sleep(step_ms / 1000)
        return "timeout" if self.quiet else {(2, str(self.path))}

    def close(self) -> None:
        self.quiet = True


def test_a_look_at_the_watch_beside_a_writer_that_never_stops_is_bounded(tmp_path: Path) -> None:
    from ccweb_conformance.checks.watch import WATCH_DRAIN_MS, EntryWatch  # noqa: PLC0415

    watch = EntryWatch(tmp_path)
    watch.close()
    endless = _EndlessEvents(tmp_path / "someone-elses.json")
    watch._notify = endless  # the cause of the hang: events that never pause for WATCH_TIMEOUT_MS
    found: list[list[Seen]] = []
    look = threading.Thread(target=lambda: found.append(watch.foreign(set())), daemon=True)
    started = time.monotonic()
    look.start()
    look.join(WATCH_DRAIN_MS / 1000 + 120)  # a safety net: the writer never stops, so only the look's bound ends it
    finished, elapsed = not look.is_alive(), time.monotonic() - started
    endless.quiet = True  # before the fix the look only ends now
    look.join(5)
    assert (finished, found[:1]) == (True, [[Seen("someone-elses.json", ("changed",))]])
    assert elapsed >= WATCH_DRAIN_MS / 1000
    assert watch.method == "inotify; the directory never went quiet: someone else writes in it"


def test_a_look_beside_a_live_writer_ends_within_its_bound(tmp_path: Path) -> None:
    from ccweb_conformance.checks.watch import WATCH_DRAIN_MS, EntryWatch  # noqa: PLC0415

    stop = threading.Event()

    def live_writer() -> None:  # a cc-web saving its own conversation through a temporary file
        while not stop.wait(0.002):
            (tmp_path / "owner.json.tmp").write_text(str(time.time()), encoding="utf-8")
            (tmp_path / "owner.json.tmp").replace(tmp_path / "owner.json")

    writer = threading.Thread(target=live_writer, daemon=True)
    watch = EntryWatch(tmp_path)
    writer.start()
    found: list[list[Seen]] = []
    look = threading.Thread(target=lambda: found.append(watch.foreign({"owner.json", "owner.json.tmp"})), daemon=True)
    try:
        time.sleep(0.1)
        look.start()
        look.join(WATCH_DRAIN_MS / 1000 + 5)
        finished = not look.is_alive()
    finally:
        stop.set()  # before the fix the look only ends once the writer stops
        writer.join(5)
        look.join(5)
        watch.close()
    assert (finished, found) == (True, [[]])


def test_changes_names_the_fields_that_moved_first() -> None:
    before = Fingerprint("file", 120, 1_700_000_000_000_000_000, 1_700_000_000_000_000_000, 42, "ab" * 32)
    after = Fingerprint("file", 120, 1_700_000_000_000_000_000, 1_700_000_000_500_000_000, 42, "ab" * 32)
    assert changes(before, after) == "ctime_ns 1700000000000000000 -> 1700000000500000000"
    renamed = Fingerprint("file", 121, 1, 2, 43, "cd" * 32)
    assert changes(before, renamed) == (
        f"size 120 -> 121, mtime_ns 1700000000000000000 -> 1, ctime_ns 1700000000000000000 -> 2, inode 42 -> 43, "
        f"sha256 {'ab' * 32} -> {'cd' * 32}"
    )
    assert (changes(before, None), changes(None, after)) == ("gone", "appeared")


def test_a_file_written_behind_a_link_into_the_parent_is_not_the_directory_s(tmp_path: Path) -> None:
    from ccweb_conformance.checks.watch import EntryWatch  # noqa: PLC0415

    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "9dc48383-dc34-4000-8000-000000000000.json").symlink_to("..")  # a link scenario's, kept to the end
    log = tmp_path / "server.log"  # a server's log beside the sessions directory
    log.write_text("started\n", encoding="utf-8")
    watch = EntryWatch(sessions)
    try:
        with log.open("a", encoding="utf-8") as handle:
            handle.write("a line\n")
        (sessions / "9dc48383-dc34-4000-8000-000000000000.json.lock").write_text("1", encoding="utf-8")
        found = watch.foreign({"9dc48383-dc34-4000-8000-000000000000.json"})
    finally:
        watch.close()
    assert [entry.name for entry in found] == ["9dc48383-dc34-4000-8000-000000000000.json.lock"]


def test_listing_names_every_entry_at_any_depth_relative_to_the_root_and_follows_no_link(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    (root / "a" / "..x").mkdir(parents=True)
    (root / "a" / "f.json").write_text("{}", encoding="utf-8")
    (root / "a" / "..x" / "g").write_text("", encoding="utf-8")
    (root / "link").symlink_to(root / "a")  # a link to a folder is one entry: nothing behind it is listed twice
    (tmp_path / "beside").mkdir()
    expected = {"a", "a/..x", "a/..x/g", "a/f.json", "link"}
    assert listing(root) == expected
    assert listing(tmp_path / "beside" / ".." / "sessions") == expected  # the root as given, not resolved
