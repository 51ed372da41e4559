"""Reading only beneath the sessions directory (SRC-7, D-7), through the kernel's openat2 and through the walk.

Every case runs twice: as the store opens files on this machine (``openat2`` where Linux has it), and
with ``openat2`` answering ``ENOSYS``, so the walk from the held directory's descriptor answers
everything (as on macOS, or under a sandbox that forbids the call).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from line_client import without_message

from ccweb_reference import beneath, cache
from ccweb_reference.core import ToolError
from ccweb_reference.store import SessionStore
from ccweb_reference.tool import call_tool


def document(content: str) -> bytes:
    return json.dumps({"id": "c", "messages": [{"role": "user", "content": content, "timestamp": "t"}]}).encode()


def answer(conversation_id: str, content: str, max_chars: int = 1000) -> dict[str, Any]:
    """The exact success object for a file holding ``document(content)`` (``content`` within ``max_chars``)."""
    item = {"messageId": None, "createdAt": "t", "content": content, "contentChars": len(content)}
    item |= {"originalChars": len(content), "truncated": False}
    return {
        "ok": True,
        "conversationId": conversation_id,
        "requestedLimit": 15,
        "maxChars": max_chars,
        "totalChars": len(content),
        "returnedCount": 1,
        "hasMore": False,
        "items": [item],
    }


NOT_FOUND = {"ok": False, "error": {"code": "conversation_not_found"}}


@pytest.fixture(params=["openat2", "walk"])
def resolution(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How files are opened; returns the list of paths ``openat2`` was asked for (none for the walk)."""
    asked: list[str] = []
    original = beneath.openat2

    def openat2(directory: int, path: str, flags: int, resolve: int) -> int:
        asked.append(path)
        if request.param == "walk":
            raise OSError(errno.ENOSYS, "forced off", path)
        return original(directory, path, flags, resolve)

    monkeypatch.setattr(beneath, "openat2", openat2)
    return asked


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    """``<tmp>/sessions`` holding x.json, sub/target.json and ..x/x.json; a secret beside it."""
    root = tmp_path / "sessions"
    (root / "sub").mkdir(parents=True)
    (root / "..x").mkdir()
    (root / "x.json").write_bytes(document("x"))
    (root / "sub" / "target.json").write_bytes(document("sub"))
    (root / "..x" / "x.json").write_bytes(document("dots"))
    (tmp_path / "sessions-evil").mkdir()
    (tmp_path / "sessions-evil" / "x.json").write_bytes(document("secret"))
    (tmp_path / "secret.json").write_bytes(document("secret"))
    (tmp_path / "alias").symlink_to(root)
    (tmp_path / "away").mkdir()
    return root


def call(store: SessionStore, conversation_id: str, max_chars: int = 1000) -> dict[str, Any]:
    arguments = {"conversationId": conversation_id, "maxChars": max_chars}
    return without_message(*call_tool(store, arguments, None))


# name -> (the link's target, given the sessions directory; the content read, or None: not found)
LINKS: dict[str, tuple[Callable[[Path], str], str | None]] = {
    "relative-inside": (lambda root: "x.json", "x"),
    "into-a-subfolder": (lambda root: "sub/target.json", "sub"),
    "down-and-up": (lambda root: "sub/../x.json", "x"),
    "out-and-back": (lambda root: "../sessions/x.json", "x"),
    "absolute-inside": (lambda root: str(root / "sub" / "target.json"), "sub"),
    "absolute-through-a-link-to-the-folder": (lambda root: str(root.parent / "alias" / "x.json"), "x"),
    "out-through-a-sibling-and-back": (lambda root: "../away/../sessions/x.json", "x"),
    "a-folder-named-dot-dot-x": (lambda root: "..x/x.json", "dots"),
    "out-by-prefix": (lambda root: "../sessions-evil/x.json", None),
    "absolute-outside": (lambda root: str(root.parent / "secret.json"), None),
    "relative-outside": (lambda root: "../secret.json", None),
    "up-from-a-subfolder-past-the-root": (lambda root: "sub/../../secret.json", None),
    "dangling": (lambda root: "missing.json", None),
    "itself": (lambda root: "link.json", None),
    "the-folder-itself": (lambda root: ".", None),
    "a-subfolder": (lambda root: "sub", None),
    "the-folder-by-its-absolute-path": (str, None),
    "a-file-as-a-folder": (lambda root: "x.json/y.json", None),
}


@pytest.mark.parametrize("name", list(LINKS))
def test_a_link_is_followed_only_while_it_stays_inside(resolution: list[str], sessions: Path, name: str) -> None:
    target, content = LINKS[name]
    (sessions / "link.json").symlink_to(target(sessions))
    expected = NOT_FOUND if content is None else answer("link", content)
    assert call(SessionStore(sessions), "link") == expected
    assert call(SessionStore(sessions.parent / "alias"), "link") == expected  # the folder reached by a link
    assert resolution[0] == "link.json"  # the kernel was asked first, both times


def test_a_link_that_leaves_through_a_linked_folder_and_comes_back(resolution: list[str], sessions: Path) -> None:
    # out/.. is the parent of out's target (not of out): the kernel's reading, and the walk's
    (sessions / "out").symlink_to(sessions.parent / "away")
    (sessions / "link.json").symlink_to("out/../sessions/x.json")
    (sessions / "gone.json").symlink_to("out/../secret.json")
    assert call(SessionStore(sessions), "link") == answer("link", "x")
    assert call(SessionStore(sessions), "gone") == NOT_FOUND


def chain(sessions: Path, length: int) -> None:
    """``chain.json`` -> ``c1`` -> ... -> ``c<length - 1>`` -> ``x.json``: ``length`` links in a row."""
    (sessions / "chain.json").symlink_to("c1" if length > 1 else "x.json")
    for n in range(1, length):
        (sessions / f"c{n}").symlink_to(f"c{n + 1}" if n + 1 < length else "x.json")


@pytest.mark.parametrize(("length", "content"), [(40, "x"), (41, None)])
def test_at_most_forty_links_are_followed(
    resolution: list[str], sessions: Path, length: int, content: str | None
) -> None:
    chain(sessions, length)
    assert call(SessionStore(sessions), "chain") == (NOT_FOUND if content is None else answer("chain", content))


@pytest.mark.parametrize("kind", ["fifo", "fifo-through-a-link", "directory", "loop"])
def test_not_a_regular_file_is_not_found_and_never_waits(resolution: list[str], sessions: Path, kind: str) -> None:
    path = sessions / "odd.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "fifo-through-a-link":
        os.mkfifo(sessions / "sub" / "pipe")
        path.symlink_to("sub/pipe")
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("odd.json")
    assert call(SessionStore(sessions), "odd") == NOT_FOUND


def test_the_walk_opens_the_file_the_path_names(sessions: Path) -> None:
    root = os.open(sessions, os.O_RDONLY | os.O_DIRECTORY)
    try:
        (sessions / "link.json").symlink_to("../sessions/sub/../sub/target.json")
        descriptor = beneath.walk(root, "link.json", os.O_RDONLY)
        try:
            opened = os.fstat(descriptor)
        finally:
            os.close(descriptor)
        expected = os.stat(sessions / "sub" / "target.json")
        assert (opened.st_dev, opened.st_ino) == (expected.st_dev, expected.st_ino)
        with pytest.raises(beneath.Outside):
            beneath.walk(root, "../secret.json", os.O_RDONLY)
        with pytest.raises(FileNotFoundError):
            beneath.walk(root, "../sessions/missing.json", os.O_RDONLY)
    finally:
        os.close(root)


# --- a folder on the way swapped with a link to the outside while calls are made --------------------

RENAME_EXCHANGE = 2
AT_FDCWD = -100
RACE_CALLS = 1000
RACE_DEPTH = 30
RACE_BOUND_S = 10.0
"""The race runs for this many calls or this long, whichever comes first: a bound, not a speed check."""
PROCESS_BOUND_S = 30.0
"""How long the swapping process may take to stop once told: a guard, not a speed check."""


def exchange(first: Path, second: Path) -> None:
    """Swap two names atomically (Linux ``renameat2`` with ``RENAME_EXCHANGE``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(first))


SWAPPER = """
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
first, second = (os.fsencode(name) for name in sys.argv[1:3])
swaps = 0
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
print("swapping", flush=True)
try:
    while libc.renameat2(-100, first, -100, second, 2) == 0:
        swaps += 1
finally:
    print(swaps, flush=True)
"""
"""Another process swaps two names in a loop (RENAME_EXCHANGE) until it is told to stop, then prints how often."""


@contextmanager
def swapping(first: Path, second: Path) -> Iterator[list[int]]:
    """``first`` and ``second`` change places again and again while the block runs; yields [swaps], set at the end."""
    process = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(first), str(second)], stdout=subprocess.PIPE, text=True
    )
    swaps: list[int] = []
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == "swapping\n"
        yield swaps
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=PROCESS_BOUND_S)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
        swaps.append(int(output.split()[-1]) if output.split() else 0)
    if first.is_symlink():
        exchange(first, second)


@pytest.mark.skipif(sys.platform != "linux", reason="renameat2 with RENAME_EXCHANGE is Linux's")
def test_a_concurrent_rename_never_leads_a_read_outside(
    resolution: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "SETTLE_NS", -(1 << 62))  # every file counts as settled: results are cached
    root, outside = tmp_path / "sessions", tmp_path / "outside"
    below = "/".join(["p"] * RACE_DEPTH)  # the same folders inside d and outside: the longer the way, the wider
    (root / "d" / below).mkdir(parents=True)  # a check-then-open store's window
    (outside / below).mkdir(parents=True)
    (root / "d" / below / "victim.json").write_bytes(document("inside"))
    (outside / below / "victim.json").write_bytes(document("SECRET"))
    (root / "c.json").symlink_to(f"d/{below}/victim.json")
    (root / "dl").symlink_to(outside)
    store = SessionStore(root)
    reads = {"inside": 0, "outside": 0, "not found": 0}
    calls: dict[str, list[int]] = {"inside": [], "outside": [], "not found": []}
    with swapping(root / "d", root / "dl") as swaps:
        deadline = time.monotonic() + RACE_BOUND_S
        for n in range(RACE_CALLS):
            reads[read_kind(store)] += 1
            max_chars = 6 + n % 995  # each call its own arguments: no call is answered from another's result
            calls[call_kind(call(store, "c", max_chars), max_chars)].append(max_chars)
            if time.monotonic() > deadline:
                break
    # the same calls again, the folder back in place: nothing read during the race is kept for the inside file
    after = [call_kind(call(store, "c", m), m) for made in calls.values() for m in made]
    counts = {kind: len(made) for kind, made in calls.items()}
    assert (reads["outside"], counts["outside"]) == (0, 0), f"reads {reads}, calls {counts}, {swaps[0]} swaps"
    assert reads["inside"] > 0 and reads["not found"] > 0, f"no race happened: {reads}, {swaps[0]} swaps"
    assert set(after) == {"inside"}


def read_kind(store: SessionStore) -> str:
    """What one read of c.json found: the file inside, the file outside, or nothing."""
    try:
        data = store.read_bytes("c")
    except ToolError as error:
        assert error.code == "conversation_not_found"
        return "not found"
    assert data in (document("inside"), document("SECRET"))
    return "inside" if data == document("inside") else "outside"


def call_kind(got: dict[str, Any], max_chars: int) -> str:
    """What one call answered: the file inside, the file outside, or not found (nothing else)."""
    kinds = {"inside": answer("c", "inside", max_chars), "outside": answer("c", "SECRET", max_chars)}
    kinds["not found"] = NOT_FOUND
    assert got in kinds.values(), got
    return next(kind for kind, result in kinds.items() if got == result)


def test_a_result_is_cached_under_the_file_it_was_read_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read that found another file than the one the call looked up is not cached as the first one's."""
    monkeypatch.setattr(cache, "SETTLE_NS", -(1 << 62))
    root = tmp_path / "sessions"
    for folder, content in (("d", "first"), ("e", "other")):
        (root / folder).mkdir(parents=True)
        (root / folder / "a.json").write_bytes(document(content))
    (root / "c.json").symlink_to("d/a.json")
    original = SessionStore.read_messages

    def read_while_swapped(self: SessionStore, conversation_id: str) -> Any:
        """The folders change places for the read only: before and after it, c.json is d/a.json."""
        swap(root / "d", root / "e")
        try:
            return original(self, conversation_id)
        finally:
            swap(root / "d", root / "e")

    store = SessionStore(root)
    monkeypatch.setattr(SessionStore, "read_messages", read_while_swapped)
    assert call(store, "c") == answer("c", "other")
    monkeypatch.setattr(SessionStore, "read_messages", original)
    assert call(store, "c") == answer("c", "first")
    assert call(store, "c") == answer("c", "first")


def swap(first: Path, second: Path) -> None:
    """Two names change places (three renames: this test needs no atomicity)."""
    aside = first.with_name(f"{first.name}.aside")
    first.rename(aside)
    second.rename(first)
    aside.rename(second)


@pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() not in beneath._OPENAT2,
    reason="openat2 is tried on Linux, on the machines whose call number the reference knows; elsewhere the walk",
)
def test_the_kernel_opens_beneath_and_refuses_a_way_out(sessions: Path) -> None:
    """Where Linux has openat2 it is the first path: a file inside opens, a step out is EXDEV (the walk judges it)."""
    root = os.open(sessions, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            descriptor = beneath.openat2(root, "sub/../sub/target.json", os.O_RDONLY, beneath.RESOLVE_BENEATH)
        except OSError as error:
            if error.errno in (errno.ENOSYS, errno.EPERM):
                # a kernel before 5.6 (ENOSYS) or a seccomp filter that denies the call (EPERM): the store then
                # answers by the walk alone, which the tests above hold; nothing of openat2 is left to check
                pytest.skip(f"openat2 is not allowed here ({error.strerror}): the walk answers everything")
            raise
        os.close(descriptor)
        for way_out in ("../secret.json", "../sessions/x.json", str(sessions / "x.json")):
            with pytest.raises(OSError) as refused:
                beneath.openat2(root, way_out, os.O_RDONLY, beneath.RESOLVE_BENEATH)
            assert refused.value.errno == errno.EXDEV
    finally:
        os.close(root)
