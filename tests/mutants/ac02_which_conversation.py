"""Mutants killed by scenarios of features/ccweb_features/ac02_which_conversation.feature."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from ccweb_reference import server, store, tool
from ccweb_reference.cache import stat_key
from ccweb_reference.core import ToolError
from mutants.patching import _ORIGINAL_TARGET, _before, _unreadable, stored_path
from mutants.registry import mutant

OpenFile = Callable[[store.SessionStore, str, int], tuple[int, os.stat_result]]


def _opening_by_path(inside: Callable[[str, store.SessionStore], bool]) -> OpenFile:
    """The store's ``_open`` as a check-then-open by path: realpath, ``inside(real, store)``, then open ``real``."""

    def open_file(self: store.SessionStore, conversation_id: str, flags: int) -> tuple[int, os.stat_result]:
        try:
            real = os.path.realpath(stored_path(self, conversation_id), strict=True)
        except OSError:
            raise self._not_found(conversation_id) from None
        if not inside(real, self):
            raise self._not_found(conversation_id)
        try:
            descriptor = os.open(real, flags | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EPERM):
                raise _unreadable(f"the conversation file cannot be read: {error.strerror}") from None
            raise self._not_found(conversation_id) from None
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            os.close(descriptor)
            raise self._not_found(conversation_id)
        return descriptor, info

    return open_file


@mutant(
    "empty_explicit_falls_back",
    "SRC-5",
    "An explicit conversationId that cleans to nothing never falls back to the source",
    "an explicit ID that cleans to nothing falls back to the source conversation",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if explicit is not None and not tool.clean_id(explicit):
            return _ORIGINAL_TARGET(None, source)
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "ids_not_cleaned",
    "SRC-4",
    "An explicit conversationId is cleaned before lookup",
    "conversation IDs are used as given",
)
def _() -> None:
    tool.clean_id = lambda raw: raw


@mutant(
    "cleaning_keeps_dots",
    "SRC-4",
    "An explicit conversationId is cleaned before lookup [.{alpha}.]",
    "cleaning keeps '.' and '_' as well as [A-Za-z0-9-]",
)
def _() -> None:
    tool.clean_id = lambda raw: re.sub(r"[^A-Za-z0-9._-]", "", raw)


@mutant(
    "source_not_cleaned",
    "SRC-4",
    "The source conversation ID is cleaned before lookup",
    "the source conversation ID is not cleaned (the explicit one is)",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if explicit is None and source and tool.clean_id(source):
            return source
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "missing_source_code",
    "SRC-3 ERR-1",
    "No conversationId and no source conversation",
    "a missing source is reported as invalid_conversation_id",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        try:
            return _ORIGINAL_TARGET(explicit, source)
        except ToolError as error:
            if error.code == "missing_source_conversation":
                raise ToolError("invalid_conversation_id", error.message) from None
            raise

    tool.target_conversation = target


@mutant(
    "symlink_outside_followed",
    "SRC-7",
    "A symbolic link that leaves the sessions directory is not followed",
    "symbolic links are followed wherever they point",
)
def _() -> None:
    # the old check-then-open with no check: realpath, then open it
    store.SessionStore._open = _opening_by_path(lambda real, store_: True)  # type: ignore[method-assign]


@mutant(
    "symlink_inside_refused",
    "SRC-7",
    "A symbolic link that stays inside the sessions directory is followed",
    "every symbolic link is refused, even one that stays inside",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        if os.path.islink(stored_path(self, conversation_id)):
            raise self._not_found(conversation_id)

    _before("_open", check)


@mutant(
    "directory_unreadable",
    "SRC-6",
    "A directory named like a conversation file is not found",
    "a directory named <id>.json is reported as conversation_unreadable",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        if os.path.isdir(stored_path(self, conversation_id)):
            raise _unreadable("it is a directory")

    _before("read_file", check)


@mutant(
    "long_name_crashes",
    "SRC-6",
    "An ID too long for the file system is not found",
    "only FileNotFoundError means not found; ENAMETOOLONG escapes as an internal error",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        try:
            os.stat(stored_path(self, conversation_id))
        except FileNotFoundError:
            raise self._not_found(conversation_id) from None

    _before("_open", check)


@mutant(
    "source_ignored",
    "SRC-1",
    "No conversationId reads the source conversation",
    "without conversationId the source binding is ignored (always missing_source_conversation)",
)
def _() -> None:
    tool.target_conversation = lambda explicit, source: _ORIGINAL_TARGET(explicit, None)


@mutant(
    "source_wins",
    "SRC-2",
    "An explicit conversationId wins over the source conversation",
    "a bound source conversation wins over an explicit conversationId",
)
def _() -> None:
    def target(explicit: str | None, source: str | None) -> str:
        if source and tool.clean_id(source):
            return _ORIGINAL_TARGET(None, source)
        return _ORIGINAL_TARGET(explicit, source)

    tool.target_conversation = target


@mutant(
    "cleaning_keeps_underscore",
    "SRC-4",
    "A source conversation that cleans to nothing counts as missing",
    "cleaning uses [^\\w-] (ASCII), which keeps '_'",
)
def _() -> None:
    tool.clean_id = lambda raw: re.sub(r"[^\w-]", "", raw, flags=re.ASCII)


@mutant(
    "ids_lowercased",
    "SRC-4",
    "Upper-case letters in a conversation ID are kept",
    "cleaned conversation IDs are also lower-cased",
)
def _() -> None:
    original = tool.clean_id
    tool.clean_id = lambda raw: original(raw).lower()


@mutant(
    "path_check_by_prefix",
    "SRC-7",
    "A link into a folder beside the sessions directory is not followed, however alike the names",
    "the path check is a string prefix: realpath(target).startswith(sessions_dir) lets sessions-evil/ in",
)
def _() -> None:
    store.SessionStore._open = _opening_by_path(lambda real, store_: real.startswith(str(store_.root)))  # type: ignore[method-assign]


@mutant(
    "subfolder_link_refused",
    "SRC-7",
    "A link that resolves to a file inside the sessions tree is followed, however it is written"
    " [{archive}/{gamma}.json-from the archive]",
    "a link is followed only to a file directly in the sessions directory, not into a subfolder of it",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        real = os.path.realpath(stored_path(self, conversation_id))
        if os.path.dirname(real) != str(self.root):
            raise self._not_found(conversation_id)

    _before("_open", check)


@mutant(
    "sessions_root_not_resolved",
    "SRC-7",
    "A symbolic link that stays inside the sessions directory is followed",
    "the sessions directory is not resolved through links, so a resolved target never lies 'inside' it (macOS /tmp)",
)
def _() -> None:
    # a check-then-open by path, judged against the directory as given (an absolute path, links unresolved)
    def inside(real: str, store_: store.SessionStore) -> bool:
        return os.path.commonpath([real, store_.sessions_dir]) == store_.sessions_dir

    store.SessionStore._open = _opening_by_path(inside)  # type: ignore[method-assign]


@mutant(
    "dot_dot_prefix_is_outside",
    "SRC-7",
    "A link into an in-tree folder whose name starts with two dots is followed",
    "'outside' is judged as relpath(target, root).startswith('..'), so an in-tree folder named '..x' is outside",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        real = os.path.realpath(stored_path(self, conversation_id))
        if os.path.relpath(real, self.root).startswith(".."):
            raise self._not_found(conversation_id)

    _before("_open", check)


@mutant(
    "env_fallback_over_http",
    "SRC-3",
    "No conversationId and no source conversation",
    "over HTTP, a request without the source header falls back to the CCWEB_SESSION_ID the server was started with",
    http=True,
)
def _() -> None:
    original = server.Binding.source

    def source(self: server.Binding, ctx: Any) -> str | None:
        found = original(self, ctx)
        return found if found is not None else os.environ.get("CCWEB_SESSION_ID")

    server.Binding.source = source  # type: ignore[method-assign]


@mutant(
    "dangling_link_unreadable",
    "SRC-6",
    "A dangling symbolic link is not found",
    "a symbolic link whose target is missing is reported as conversation_unreadable (the link exists, so the file"
    " 'exists')",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        path = stored_path(self, conversation_id)
        if os.path.lexists(path) and not os.path.exists(path):
            raise _unreadable("the link's target cannot be read")

    _before("_open", check)


@mutant(
    "link_loop_unreadable",
    "SRC-6",
    "A chain of symbolic links that ends nowhere is not found [{hop}.json]",
    "a loop of links (ELOOP) is reported as conversation_unreadable, as if the file could not be read",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        try:
            os.path.realpath(stored_path(self, conversation_id), strict=True)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise _unreadable(f"the conversation file cannot be read: {error.strerror}") from None

    _before("_open", check)


@mutant(
    "link_checked_one_hop",
    "SRC-7",
    "A link to an in-tree link that leaves the sessions directory is not followed",
    "a link's own target is checked to be inside, then opened following any further link",
)
def _() -> None:
    original = store.SessionStore.read_file

    def read_file(self: store.SessionStore, conversation_id: str) -> store.StoredFile:
        root = str(self.root)
        path = stored_path(self, conversation_id)
        if not os.path.islink(path):
            return original(self, conversation_id)
        target = os.path.normpath(os.path.join(root, os.readlink(path)))
        if os.path.commonpath([target, root]) != root:
            raise ToolError("conversation_not_found", "the link leaves the sessions directory")
        try:
            with open(target, "rb") as handle:  # follows a second link wherever it points
                return store.StoredFile(handle.read(), stat_key(os.fstat(handle.fileno())))
        except OSError:
            raise ToolError("conversation_not_found", "no such conversation") from None

    store.SessionStore.read_file = read_file  # type: ignore[method-assign]


@mutant(
    "fifo_opened_blocking",
    "SRC-6",
    "A named pipe named like a conversation file is not found, and the call ends",
    "the file is opened without O_NONBLOCK and checked after: a named pipe with no writer blocks the call forever",
)
def _() -> None:
    def check(self: store.SessionStore, conversation_id: str) -> None:
        path = stored_path(self, conversation_id)
        with open(path, "rb") as handle:  # blocks on a named pipe until a writer comes, which none does
            handle.close()

    _before("read_file", check)
