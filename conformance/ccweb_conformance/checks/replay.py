"""The Python harness of the exported cases: replays a case against a function, as docs/CASES.md says.

The function under test takes ``(sessions_dir, source_id, arguments)`` (``arguments`` None when
the call has none) and returns the result object (success or error). The Node harness
(``examples/node-server/contract-cases.js``) does the same in JavaScript.

Like it, a case has a time bound (:data:`DEFAULT_CASE_TIMEOUT_S`, or ``$CCWEB_CASE_TIMEOUT_MS``, or
``timeout``): each call runs on a thread of its own, and one still unanswered when the bound is
spent fails the case there (the thread is left to finish, it cannot be stopped). A case's folder
is removed when the case ends, also on SIGINT (``KeyboardInterrupt``) and, when nothing else
handles them, on SIGTERM and SIGHUP: the folder goes, then the process dies of the signal as it
would have (the default action used to leave it behind).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.outcome import contract_differences
from ccweb_conformance.fixtures.tree import snapshot
from ccweb_conformance.jsontext import replace_lone_surrogates

ToolFunction = Callable[[Path, str | None, dict[str, Any] | None], dict[str, Any]]
DEFAULT_CASE_TIMEOUT_S = 30.0
TIMEOUT_ENV = "CCWEB_CASE_TIMEOUT_MS"
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
            data = step["utf8"].encode("utf-8") if "utf8" in step else base64.b64decode(step["base64"])
            before = os.stat(path) if step.get("keepMtime") else None
            path.write_bytes(data)
            if before is not None:
                os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
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
def case_root() -> Iterator[Path]:
    """A fresh root folder for one case, removed afterwards (also on SIGINT, SIGTERM and SIGHUP)."""
    with _removed_on_stop_signals():
        root = Path(tempfile.mkdtemp(prefix="ccweb-case-"))
        _LIVE_ROOTS.add(root)
        try:
            (root / "sessions").mkdir()
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
    with case_root() as root:
        sessions = root / sessions_folder
        for number, step in enumerate(case["steps"]):
            if step["op"] != "call":
                apply_step(root, step)
                continue
            before = snapshot(root)
            try:
                args = (sessions, step["source"], step.get("arguments"))
                got = _call_within(function, args, deadline - time.monotonic())
                problems += [f"step {number}: {p}" for p in call_problems(step["expect"], got)]
            except _Hung:
                problems.append(f"step {number}: no answer within the case's time bound of {bound:g} s")
                break
            except Exception as error:  # a harness reports a function that throws, it does not stop
                problems.append(f"step {number}: the function raised {type(error).__name__}: {error}")
            if snapshot(root) != before:
                problems.append(f"step {number}: the call changed the files (RO-1, RO-2)")
    return problems
