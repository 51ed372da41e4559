"""Opening a file beneath a held directory, so that no concurrent rename can lead the open outside it.

:func:`open_beneath` first asks the kernel (Linux ``openat2`` with ``RESOLVE_BENEATH``), which
refuses every step out of the directory, even one that comes back. Where it refuses or is missing,
:func:`walk` resolves the path itself from the held descriptor, one component at a time and never
following a link in the kernel, so a link that leaves the directory and comes back
(``../sessions/x.json``, or an absolute path through the directory) is followed as D-7 asks, and
one that ends outside is refused. Inside is judged by descriptors, never by path strings: the walk
is inside while every step since it last stood in the held directory (recognised by its device and
inode) went down from there.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import stat
import sys
from collections import deque
from typing import Any

MAX_LINKS = 40
"""Symbolic links followed in one resolution, as the Linux kernel allows."""
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_BENEATH = 0x08
_OPENAT2 = {"x86_64": 437, "aarch64": 437}
"""``openat2``'s system call number on the machines it is tried on; elsewhere the walk answers."""
_REFUSED = frozenset({errno.EXDEV, errno.ELOOP, errno.ENOSYS, errno.EPERM, errno.EAGAIN, errno.EINVAL, errno.E2BIG})
"""``openat2``'s answers that leave the judgement to the walk: a step outside (perhaps one that comes
back), a link it will not follow, no such call, a sandbox that forbids it, a race it would not judge."""
_DIRECTORY = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NOT_A_LINK_HERE = frozenset({errno.ELOOP, errno.ENOTDIR, errno.EMLINK})
"""What opening a symbolic link with ``O_NOFOLLOW`` answers (``EMLINK`` on FreeBSD)."""


class Outside(OSError):
    """The path leads outside the held directory."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.EXDEV, "the path leads outside the directory", path)


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


@functools.cache
def _libc_syscall() -> Any:
    """libc's ``syscall`` function, returning a C long."""
    function = ctypes.CDLL(None, use_errno=True).syscall
    function.restype = ctypes.c_long
    return function


def openat2(directory: int, path: str, flags: int, resolve: int) -> int:
    """Linux ``openat2(directory, path, {flags, 0, resolve})``; raises ``OSError`` (``ENOSYS`` where it is missing)."""
    number = _OPENAT2.get(platform.machine()) if sys.platform == "linux" else None
    if number is None:
        raise OSError(errno.ENOSYS, "openat2 is not available here", path)
    syscall = _libc_syscall()
    how = _OpenHow(flags, 0, resolve)
    descriptor = syscall(
        ctypes.c_long(number), ctypes.c_int(directory), os.fsencode(path), ctypes.byref(how), ctypes.c_size_t(24)
    )
    if descriptor < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), path)
    return int(descriptor)


def open_beneath(root: int, path: str, flags: int) -> int:
    """A descriptor for ``path`` opened from ``root`` with ``flags``, reached without leaving ``root``.

    ``path`` is relative to ``root``; links are followed wherever they stay beneath it. Raises
    :class:`Outside` when the path leads out, ``OSError`` (``ENOENT``, ``ELOOP``...) when it leads nowhere.
    The caller checks what it got (``fstat``): a directory or a FIFO opens too.
    """
    try:
        return openat2(root, path, flags | os.O_CLOEXEC, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
    except OSError as error:
        if error.errno not in _REFUSED:
            raise
    return walk(root, path, flags)


def _same(info: os.stat_result, identity: tuple[int, int]) -> bool:
    return (info.st_dev, info.st_ino) == identity


def _link_target(parent: int, name: str, error: OSError) -> str:
    """The target of the link ``name`` in ``parent``; ``error`` again when ``name`` is no link (any more)."""
    try:
        return os.readlink(name, dir_fd=parent)
    except OSError:
        raise error from None


class _Walk:
    """The descriptors a walk holds: the directories gone down through since it last stood in the root."""

    def __init__(self, root: int) -> None:
        self.root = root
        info = os.fstat(root)
        self.identity = (info.st_dev, info.st_ino)
        self.held: list[int] = []
        self.inside = True

    @property
    def here(self) -> int:
        return self.held[-1] if self.held else self.root

    def release(self) -> None:
        while self.held:
            os.close(self.held.pop())

    def restart_at_top(self) -> None:
        """An absolute link: from ``/``, outside until the walk re-enters the root."""
        top = os.open("/", _DIRECTORY)
        self.release()
        self.inside = False
        self.enter(top)

    def enter(self, directory: int, info: os.stat_result | None = None) -> None:
        """Stand in ``directory`` (owned from now on; ``info`` its fstat); standing in the root again means inside."""
        if _same(os.fstat(directory) if info is None else info, self.identity):
            os.close(directory)
            self.release()
            self.inside = True
            return
        self.held.append(directory)

    def up(self) -> None:
        """``..``: inside, back to the directory the walk came from (the root's own parent is outside)."""
        if self.inside and self.held:
            os.close(self.held.pop())
            return
        parent = os.open("..", _DIRECTORY, dir_fd=self.here)
        self.inside = False
        self.enter(parent)


def walk(root: int, path: str, flags: int) -> int:
    """:func:`open_beneath` without the kernel's help: each component opened with ``O_NOFOLLOW``, links read here."""
    state = _Walk(root)
    pending = deque(path.split("/"))
    links = 0
    try:
        if path.startswith("/"):
            state.restart_at_top()
        while pending:
            name = pending.popleft()
            if name in ("", "."):
                continue
            last = not pending
            if name == "..":
                state.up()
                continue
            target = _step(state, name, flags if last else _DIRECTORY, last)
            if isinstance(target, tuple):
                if last:
                    return target[0]
                state.enter(*target)
                continue
            links += 1
            if links > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
            if not target:
                raise OSError(errno.ENOENT, os.strerror(errno.ENOENT), path)
            pending.extendleft(reversed(target.split("/")))
            if target.startswith("/"):
                state.restart_at_top()
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)  # the path ends in a directory
    finally:
        state.release()


def _step(state: _Walk, name: str, flags: int, last: bool) -> tuple[int, os.stat_result] | str:
    """``name`` in the walk's directory: an opened descriptor and its fstat, or the target of a link to follow."""
    parent = state.here
    if last and not state.inside:  # never open a file outside: only a link may still lead back in
        info = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return os.readlink(name, dir_fd=parent)
        raise Outside(name)
    try:
        opened = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError as error:
        if error.errno not in _NOT_A_LINK_HERE:
            raise
        return _link_target(parent, name, error)
    try:
        info = os.fstat(opened)
    except OSError:
        os.close(opened)
        raise
    if stat.S_ISLNK(info.st_mode):  # O_PATH | O_NOFOLLOW opens the link itself
        os.close(opened)
        return os.readlink(name, dir_fd=parent)
    return opened, info
