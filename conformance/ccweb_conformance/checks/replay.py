"""The Python harness of the exported cases: replays a case against a function, as docs/CASES.md says.

The function under test takes ``(sessions_dir, source_id, arguments)`` (``arguments`` None when
the call has none) and returns the result object (success or error). The Node harness
(``examples/node-server/test/contract-cases.js``) does the same in JavaScript.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ccweb_conformance.checks.outcome import contract_differences
from ccweb_conformance.fixtures.tree import snapshot
from ccweb_conformance.jsontext import replace_lone_surrogates

ToolFunction = Callable[[Path, str | None, dict[str, Any] | None], dict[str, Any]]
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


@contextmanager
def case_root() -> Iterator[Path]:
    """A fresh root folder for one case, removed afterwards (even with unreadable files in it)."""
    root = Path(tempfile.mkdtemp(prefix="ccweb-case-"))
    try:
        (root / "sessions").mkdir()
        yield root
    finally:
        for folder, _, names in os.walk(root):
            for name in names:
                entry = Path(folder) / name
                if not entry.is_symlink():
                    entry.chmod(0o600)
        shutil.rmtree(root, ignore_errors=True)


def replay_case(case: dict[str, Any], function: ToolFunction, sessions_folder: str = "sessions") -> list[str]:
    """Run one case: every problem found (wrong results, files changed by a call); empty when it passes."""
    problems: list[str] = []
    with case_root() as root:
        sessions = root / sessions_folder
        for number, step in enumerate(case["steps"]):
            if step["op"] != "call":
                apply_step(root, step)
                continue
            before = snapshot(root)
            try:
                got = function(sessions, step["source"], step.get("arguments"))
                problems += [f"step {number}: {p}" for p in call_problems(step["expect"], got)]
            except Exception as error:  # a harness reports a function that throws, it does not stop
                problems.append(f"step {number}: the function raised {type(error).__name__}: {error}")
            if snapshot(root) != before:
                problems.append(f"step {number}: the call changed the files (RO-1, RO-2)")
    return problems
