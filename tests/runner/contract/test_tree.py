"""Folder trees as data and the operations between two states (the case export's steps)."""

from __future__ import annotations

import os

from ccweb_conformance.contract.tree import Entry, file_content, operations, snapshot


def test_snapshot_lists_files_folders_and_links_without_following_them(tmp_path):
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "a.json").write_bytes(b"{}")
    (tmp_path / "sessions" / "link.json").symlink_to("a.json")
    tree = snapshot(tmp_path)
    assert sorted(tree) == ["sessions", "sessions/a.json", "sessions/link.json"]
    assert tree["sessions"].kind == "dir"
    assert (tree["sessions/a.json"].kind, tree["sessions/a.json"].data) == ("file", b"{}")
    assert (tree["sessions/link.json"].kind, tree["sessions/link.json"].link) == ("link", "a.json")


def test_operations_create_in_order_and_remove_deepest_first(tmp_path):
    before = {"old": Entry("dir"), "old/x.json": Entry("file", b"x", mode=0o644)}
    after = {
        "new": Entry("dir"),
        "new/y.json": Entry("file", b"\xff", mode=0o644),
        "new/l": Entry("link", link="y.json"),
    }
    assert operations(before, after, tmp_path) == [
        {"op": "remove", "path": "old/x.json"},
        {"op": "remove", "path": "old"},
        {"op": "mkdir", "path": "new"},
        {"op": "symlink", "path": "new/l", "target": "y.json"},
        {"op": "write", "path": "new/y.json", "base64": "/w=="},
    ]


def test_a_rewrite_that_keeps_its_time_says_so_and_an_unchanged_file_is_not_written(tmp_path):
    before = {"a": Entry("file", b"aaaa", mode=0o644, mtime_ns=5), "b": Entry("file", b"b", mode=0o644, mtime_ns=5)}
    after = {"a": Entry("file", b"bbbb", mode=0o644, mtime_ns=5), "b": Entry("file", b"b", mode=0o644, mtime_ns=5)}
    assert operations(before, after, tmp_path) == [{"op": "write", "path": "a", "utf8": "bbbb", "keepMtime": True}]


def test_an_unreadable_file_carries_its_mode_and_a_repaired_one_its_new_mode(tmp_path):
    readable, unreadable = Entry("file", b"{}", mode=0o644), Entry("file", b"{}", mode=0o000)
    assert operations({}, {"a": unreadable}, tmp_path) == [
        {"op": "write", "path": "a", "utf8": "{}"},
        {"op": "chmod", "path": "a", "mode": 0},
    ]
    assert operations({"a": unreadable}, {"a": readable}, tmp_path) == [{"op": "chmod", "path": "a", "mode": 0o644}]
    assert operations({}, {"a": readable}, tmp_path) == [{"op": "write", "path": "a", "utf8": "{}"}]


def test_an_absolute_link_into_the_root_becomes_relative_and_one_outside_is_copied_in(tmp_path):
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    outside.mkdir()
    try:
        (outside / "secret.json").write_bytes(b'{"messages": []}')
        after = {
            "sessions": Entry("dir"),
            "sessions/in.json": Entry("link", link=str(tmp_path / "sessions" / "a.json")),
            "sessions/out.json": Entry("link", link=str(outside / "secret.json")),
        }
        assert operations({"sessions": Entry("dir")}, after, tmp_path) == [
            {"op": "symlink", "path": "sessions/in.json", "target": "a.json"},
            {"op": "mkdir", "path": "outside"},
            {"op": "write", "path": "outside/secret.json", "utf8": '{"messages": []}'},
            {"op": "symlink", "path": "sessions/out.json", "target": "../outside/secret.json"},
        ]
    finally:
        (outside / "secret.json").unlink()
        os.rmdir(outside)


def test_file_content_keeps_exact_bytes():
    assert file_content("汉字 😀".encode()) == {"utf8": "汉字 😀"}
    assert file_content(b"\xef\xbb\xbf{}") == {"utf8": "\ufeff{}"}
    assert file_content(b"\xed\xa0\x80") == {"base64": "7aCA"}
