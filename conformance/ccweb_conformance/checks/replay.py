"""The Python harness of the exported cases: replays a case against a function, as CASES.md says.

The function under test takes ``(sessions_dir, source_id, arguments)`` (``arguments`` None when
the call has none) and returns the result object (success or error). The Node harness
(``ccweb_conformance/harness/contract-cases.js``) does the same in JavaScript.

Like it, a case has a time bound (:data:`DEFAULT_CASE_TIMEOUT_S`, or ``$CCWEB_CASE_TIMEOUT_MS``, or
``timeout``): each call runs on a thread of its own, and one still unanswered when the bound is
spent fails the case there (the thread is left to finish, it cannot be stopped). A case's folder
is removed when the case ends, also on SIGINT (``KeyboardInterrupt``) and, when nothing else
handles them, on SIGTERM and SIGHUP: the folder goes, then the process dies of the signal as it
would have (the default action used to leave it behind).

A call must change nothing (RO-1, RO-2): every entry under the case's root is fingerprinted
before and after it (kind, size, exact modification and change times in nanoseconds, inode,
SHA-256 of the bytes, link target), the harness first waits for the clock to pass the newest of
those times (so a change during the call cannot keep a time it already had), and on Linux the
folders are watched through inotify during the call, so an entry that lived only during it (a lock
or temporary file) shows; elsewhere the folders' modification times stand in.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.ledger import Fingerprint, fingerprint, moved
from ccweb_conformance.checks.outcome import contract_differences
from ccweb_conformance.checks.watch import FOLDER_TIME, EntryWatch, Seen
from ccweb_conformance.jsontext import replace_lone_surrogates

ToolFunction = Callable[[Path, str | None, dict[str, Any] | None], dict[str, Any]]
DEFAULT_CASE_TIMEOUT_S = 30.0
TIMEOUT_ENV = "CCWEB_CASE_TIMEOUT_MS"
_COARSE_CLOCK = 5 if sys.platform.startswith("linux") else None
"""CLOCK_REALTIME_COARSE: the clock Linux stamps files with (one tick, 1-10 ms, behind the fine clock)."""
CLOCK_WAIT_S = 0.05
"""The longest wait for the clock to pass a case's newest file time (a file system with coarser times)."""
_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_LIVE_ROOTS: set[Path] = set()

_fffd = replace_lone_surrogates
"""D-3: a lone surrogate may come back as U+FFFD, so both sides are compared with it replaced."""


def call_problems(expect: dict[str, Any], got: Any) -> list[str]:
    """Where a call's result breaks what the case expects; empty when it conforms."""
    if "result" in expect:
        return contract_differences(_fffd(expect["result"]), _fffd(got))
    if not isinstance(got, dict) or got.get("ok") is not False or not isinstance(got.get("error"), dict):
        return [f"$: expected an error object with code {expect['error']!r}, got {json.dumps(got, ensure_ascii=False)}"]
    error = got["error"]
    problems = []
    if not isinstance(error.get("message"), str) or not error["message"]:
        problems.append(f"$.error.message: expected a non-empty string, got {json.dumps(error.get('message'))}")
    if error.get("code") != expect["error"]:
        problems.append(f"$.error.code: expected {expect['error']!r}, got {json.dumps(error.get('code'))}")
    if "field" in expect and error.get("field") not in expect["field"]:
        problems.append(f"$.error.field: expected one of {expect['field']}, got {json.dumps(error.get('field'))}")
    return problems


def apply_step(root: Path, step: dict[str, Any]) -> None:
    """One folder operation of a case, inside ``root``."""
    path = root / step["path"]
    match step["op"]:
        case "mkdir":
            path.mkdir()
        case "write":
            _write(path, step)
        case "symlink":
            path.symlink_to(step["target"])
        case "chmod":
            path.chmod(step["mode"])
        case "remove":
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        case other:
            raise ValueError(f"unknown operation {other!r}")


def _write(path: Path, step: dict[str, Any]) -> None:
    """A ``write``: the bytes in place (the same inode) or, with ``replace``, through a new file renamed over it;
    then the modification time: the old one with ``keepMtime``, else ``ageSeconds`` before the current second."""
    data = step["utf8"].encode("utf-8") if "utf8" in step else base64.b64decode(step["base64"])
    before = os.stat(path) if step.get("keepMtime") else None
    if step.get("replace"):
        temporary = path.with_name(f"{path.name}.ccweb-replace")
        temporary.write_bytes(data)
        os.replace(temporary, path)
    else:
        path.write_bytes(data)
    if before is not None:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        then = (time.time_ns() // 1_000_000_000 - int(step.get("ageSeconds", 0))) * 1_000_000_000
        os.utime(path, ns=(then, then))


def file_states(root: Path) -> dict[str, Fingerprint | None]:
    """Every entry under ``root`` (links not followed) with what a call may not change: kind, size, exact times,
    inode and the bytes' SHA-256 (a file nobody may read: its times, which any write moves), link targets."""
    states: dict[str, Fingerprint | None] = {}
    for folder, subfolders, names in os.walk(root):
        for name in sorted(subfolders + names):
            path = Path(folder) / name
            state = fingerprint(path) or fingerprint(path, digest=False)
            if state is not None and os.path.islink(path):
                state = dataclasses.replace(state, sha256=f"link:{os.readlink(path)}")
            states[path.relative_to(root).as_posix()] = state
    return states


def _wait_for_the_clock(states: dict[str, Fingerprint | None]) -> None:
    """Wait (at most :data:`CLOCK_WAIT_S`) until the file clock is past the newest time of ``states``: a change
    during the call then moves a time, whichever tick it lands in."""
    newest = max((max(s.mtime_ns, s.ctime_ns) for s in states.values() if s is not None), default=0)
    deadline = time.monotonic() + CLOCK_WAIT_S
    while time.monotonic() < deadline:
        now = time.clock_gettime_ns(_COARSE_CLOCK) if _COARSE_CLOCK is not None else time.time_ns()
        if now > newest:
            return
        time.sleep(0.001)


def call_changes(before: dict[str, Fingerprint | None], after: dict[str, Fingerprint | None], seen: list[Seen]) -> str:
    """What the call changed under the root (RO-1, RO-2), one line, or "" when nothing."""
    found = [f"{name} {what.split(';')[0]}" for name, what in moved(before, after).items()]
    found += [f"{name} (appeared)" for name in sorted(after.keys() - before.keys())]
    known = before.keys() | after.keys()
    found += [f"{e} (seen during the call)" for e in seen if e.events == (FOLDER_TIME,) or e.name not in known]
    return "; ".join(found)


def _remove(root: Path) -> None:
    """Remove a case folder, even with unreadable files in it."""
    for folder, _, names in os.walk(root):
        for name in names:
            entry = Path(folder) / name
            if not entry.is_symlink():
                entry.chmod(0o600)
    shutil.rmtree(root, ignore_errors=True)


def _stop(signum: int, _frame: Any) -> None:
    """SIGTERM or SIGHUP during a case: remove the live case folders, then die of the signal."""
    for root in list(_LIVE_ROOTS):
        _remove(root)
    _LIVE_ROOTS.clear()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextmanager
def _removed_on_stop_signals() -> Iterator[None]:
    """While a case runs, SIGTERM and SIGHUP remove its folder first, if nothing else handles them."""
    installed = []
    if threading.current_thread() is threading.main_thread():
        for signum in _STOP_SIGNALS:
            if signal.getsignal(signum) == signal.SIG_DFL:
                signal.signal(signum, _stop)
                installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            signal.signal(signum, signal.SIG_DFL)


@contextmanager
def case_root(sessions_folder: str = "sessions") -> Iterator[Path]:
    """A fresh root folder for one case, removed afterwards (also on SIGINT, SIGTERM and SIGHUP); its sessions
    folder is a link to the folder ``sessions_folder + "-data"`` beside it, as the runner's own is (D-7)."""
    with _removed_on_stop_signals():
        root = Path(tempfile.mkdtemp(prefix="ccweb-case-"))
        _LIVE_ROOTS.add(root)
        try:
            (root / f"{sessions_folder}-data").mkdir()
            (root / sessions_folder).symlink_to(f"{sessions_folder}-data")
            yield root
        finally:
            _remove(root)
            _LIVE_ROOTS.discard(root)


def case_timeout(timeout: float | None = None) -> float:
    """The case time bound in seconds: ``timeout``, else ``$CCWEB_CASE_TIMEOUT_MS``, else 30 s."""
    if timeout is not None:
        return timeout
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_CASE_TIMEOUT_S
    try:
        value = float(text) / 1000
    except ValueError:
        raise ValueError(f"{TIMEOUT_ENV} must be a number of milliseconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise ValueError(f"{TIMEOUT_ENV} must be a positive number of milliseconds, got {text!r}")
    return value


class _Hung(Exception):
    """The call did not answer within the case's time bound."""


def _call_within(function: ToolFunction, args: tuple[Any, ...], seconds: float) -> Any:
    """``function(*args)`` on a thread of its own; its result, its exception, or :class:`_Hung`."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = function(*args)
        except BaseException as error:  # handed to the caller
            outcome["error"] = error

    worker = threading.Thread(target=run, name="ccweb-case-call", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if worker.is_alive():
        raise _Hung
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def replay_case(
    case: dict[str, Any], function: ToolFunction, sessions_folder: str = "sessions", timeout: float | None = None
) -> list[str]:
    """Run one case: every problem found (wrong results, files changed by a call, no answer within the case's
    time bound); empty when it passes."""
    problems: list[str] = []
    bound = case_timeout(timeout)
    deadline = time.monotonic() + bound
    with case_root(sessions_folder) as root:
        sessions = root / sessions_folder
        for number, step in enumerate(case["steps"]):
            if step["op"] != "call":
                apply_step(root, step)
                continue
            before = file_states(root)
            _wait_for_the_clock(before)
            watch = EntryWatch(root)
            try:
                args = (sessions, step["source"], step.get("arguments"))
                got = _call_within(function, args, deadline - time.monotonic())
                problems += [f"step {number}: {p}" for p in call_problems(step["expect"], got)]
            except _Hung:
                watch.close()
                problems.append(f"step {number}: no answer within the case's time bound of {bound:g} s")
                break
            except Exception as error:  # a harness reports a function that throws, it does not stop
                problems.append(f"step {number}: the function raised {type(error).__name__}: {error}")
            try:
                seen = watch.foreign(set())
            finally:
                watch.close()
            changed = call_changes(before, file_states(root), seen)
            if changed:
                problems.append(f"step {number}: the call changed the files (RO-1, RO-2): {changed}")
    return problems
