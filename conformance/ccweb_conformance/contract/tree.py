"""A folder tree as data, and the operations that turn one state of it into another.

The case export (``ccweb-conformance export``) records a scenario as the operations a harness
replays on a folder of its own: write a file with exact bytes, make a folder or a link, change
permissions, remove. Paths are relative to the scenario's root folder and use ``/``.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OUTSIDE_FOLDER = "outside"
"""Where a file a link points at outside the run's folders is recreated, beside the sessions folder."""
UNREADABLE_BITS = stat.S_IRUSR
"""A file whose owner may not read it is recorded with its mode (the unreadable-file cases)."""


@dataclass(frozen=True)
class Entry:
    """One entry of the tree: a file (its bytes), a folder, or a link (its target as written)."""

    kind: str
    data: bytes = b""
    link: str = ""
    mode: int = 0
    mtime_ns: int = 0
    """Files only: compared, so a call that touches a file shows, but never exported (it is a real time)."""


def snapshot(root: Path) -> dict[str, Entry]:
    """Every entry under ``root`` at any depth, by relative path; links are not followed."""
    entries: dict[str, Entry] = {}
    for folder, subfolders, names in os.walk(root):
        base = Path(folder)
        for name in sorted(subfolders + names):
            path = base / name
            relative = path.relative_to(root).as_posix()
            info = os.lstat(path)
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                entries[relative] = Entry("link", link=os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                entries[relative] = Entry("dir", mode=mode)
            elif stat.S_ISREG(info.st_mode):
                entries[relative] = Entry("file", data=_read(path, mode), mode=mode, mtime_ns=info.st_mtime_ns)
    return entries


def _read(path: Path, mode: int) -> bytes:
    if mode & UNREADABLE_BITS or os.geteuid() == 0:
        return path.read_bytes()
    os.chmod(path, mode | UNREADABLE_BITS)
    try:
        return path.read_bytes()
    finally:
        os.chmod(path, mode)


def _link_target(link: str, relative: str, root: Path) -> str:
    """A link's target as a harness recreates it: relative to the link's folder when it points into the root."""
    target = Path(link)
    if not target.is_absolute():
        return link
    for base in (root, root.resolve()):
        if target.is_relative_to(base):
            inside = target.relative_to(base)
            return Path(os.path.relpath(inside, Path(relative).parent)).as_posix()
    return link


def _bring_inside(outside: Path, link: str, ops: list[dict[str, Any]]) -> str:
    """A link's absolute target outside the root, copied to ``outside/`` in the root (still outside the sessions)."""
    copy = f"{OUTSIDE_FOLDER}/{outside.name}"
    if not any(op["op"] == "mkdir" and op["path"] == OUTSIDE_FOLDER for op in ops):
        ops.append({"op": "mkdir", "path": OUTSIDE_FOLDER})
    ops.append({"op": "write", "path": copy, **file_content(outside.read_bytes())})
    return Path(os.path.relpath(copy, Path(link).parent)).as_posix()


def file_content(data: bytes) -> dict[str, str]:
    """Exact bytes as JSON: ``utf8`` when they are valid UTF-8 (they round-trip), else ``base64``."""
    try:
        return {"utf8": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def operations(before: dict[str, Entry], after: dict[str, Entry], root: Path) -> list[dict[str, Any]]:
    """The operations that turn the ``before`` tree into the ``after`` tree, in a replayable order."""
    ops: list[dict[str, Any]] = []
    for path in sorted((p for p in before if p not in after or before[p].kind != after[p].kind), reverse=True):
        ops.append({"op": "remove", "path": path})
    for path in sorted(after, key=lambda p: (p.count("/"), p)):
        entry, old = after[path], before.get(path)
        if old == entry:
            continue
        if entry.kind == "dir":
            if old is None or old.kind != "dir":
                ops.append({"op": "mkdir", "path": path})
        elif entry.kind == "link":
            if old is not None and old.kind == "link":
                ops.append({"op": "remove", "path": path})
            target = _link_target(entry.link, path, root)
            if Path(target).is_absolute() and Path(target).is_file():
                target = _bring_inside(Path(target), path, ops)
            ops.append({"op": "symlink", "path": path, "target": target})
        elif old is None or old.kind != "file" or old.data != entry.data:
            write: dict[str, Any] = {"op": "write", "path": path, **file_content(entry.data)}
            if old is not None and old.kind == "file" and old.mtime_ns == entry.mtime_ns:
                write["keepMtime"] = True  # rewritten with its old modification time restored (REG-2)
            ops.append(write)
        if entry.kind == "file" and _mode_matters(old, entry):
            ops.append({"op": "chmod", "path": path, "mode": entry.mode})
    return ops


def _mode_matters(old: Entry | None, new: Entry) -> bool:
    """A file's mode is recorded when it makes the file unreadable, or makes an unreadable one readable again."""
    was_unreadable = old is not None and old.kind == "file" and not old.mode & UNREADABLE_BITS
    if old is not None and old.kind == "file" and old.mode == new.mode:
        return False
    return was_unreadable or not new.mode & UNREADABLE_BITS
