#!/usr/bin/env python3
"""The exported cases (``ccweb-conformance export``) against every mutant, through the Python harness.

A mutant is *expressible* at function level when the scenario that kills it in a run is a
function-level case of the export; each such mutant must fail at least one exported case when
the cases are replayed against the reference's tool function with the mutant applied. Each
mutant runs in a forked child (the patch dies with it). Prints one line per mutant and the score.

    .venv/bin/python tests/mutants/cases_score.py examples/node-server/contract/cases.json
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
from collections import deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mutants.catalogue import MUTANTS, Mutant, scenario_matches

ENVELOPE_ONLY = {
    "errors_not_flagged": "isError is a flag of the MCP result, not part of the object a function returns",
    "success_flagged": "isError is a flag of the MCP result, not part of the object a function returns",
    "env_fallback_over_http": "a fallback to the environment shows only over HTTP, where the source is a header",
    "newest_first_after_initialize": "wrong in the initialize era only: an era is MCP's, not a function's (D-16)",
    "debounced_mark_read": "a write 50-300 ms after the call: the run's settle delay sees it, a harness does not wait",
    "sdk_v2_validation_text": "a plain-text validation error is the MCP result's content, not a function's object",
    "settled_by_size_and_mtime": "trusts a file whose last change is seconds old: the run ages it, a harness does not",
    "settled_trusted_forever": "trusts a file whose last change is seconds old: the run ages it, a harness does not",
}
"""Mutants whose scenario is a function-level case but whose bug lies outside the function: in the MCP
envelope, the transport, the era, a time after the call returned, or a file's real age before the first call,
which only the run proves (the export's ``runnerOnly``). Since format 2 the cases record a file's age and a
save by rename (REG-2), and a harness reaches its sessions folder through a link, as the run does (D-7)."""


def reference_function() -> Any:
    """The reference's tool function, looked up at call time (so a mutant's patch is seen)."""
    from ccweb_reference import server  # noqa: PLC0415
    from ccweb_reference.store import SessionStore  # noqa: PLC0415

    stores: dict[Path, SessionStore] = {}

    def call(sessions: Path, source: str | None, arguments: dict[str, Any] | None) -> dict[str, Any]:
        store = stores.setdefault(sessions, SessionStore(sessions))
        result: dict[str, Any] = server.call_tool(store, arguments, source)[0]
        return result

    return call


def expressible(mutant: Mutant, cases: list[dict[str, Any]]) -> bool:
    """True for a MUST-level bug in the returned object whose killing scenario is a function-level case.

    SHOULD-level bugs are the run's warnings (the cases check what MUST hold; a lone surrogate
    may come back as U+FFFD, D-3); bugs in the MCP envelope are the run's (ENVELOPE_ONLY).
    """
    if mutant.should or mutant.name in ENVELOPE_ONLY:
        return False
    return any(scenario_matches(mutant.killed_by, case["scenario"]) for case in cases)


def failing_cases(mutant: Mutant, cases: list[dict[str, Any]]) -> list[str]:
    """In this process: apply the mutant, replay the cases (its own scenario's first), return the failing IDs."""
    from ccweb_conformance.checks.replay import replay_case  # noqa: PLC0415

    mutant.apply()
    call = reference_function()
    first = [c for c in cases if scenario_matches(mutant.killed_by, c["scenario"])]
    for group in (first, [c for c in cases if c not in first]):
        failed = [c["id"] for c in group if replay_case(c, call)]
        if failed:
            return failed
    return []


JOBS = 4
"""Mutants replayed at once, each in its own forked child: a replay mostly waits (the file clock's tick before
each call, the reference's re-reads of a torn save), so children side by side shorten the score's wall time."""


def _replay_in_child(mutant: Mutant, cases: list[dict[str, Any]], out: Path) -> None:
    """In a forked child: patch, replay, write the failing IDs to ``out``, exit without cleanup handlers."""
    try:
        try:
            payload = json.dumps(failing_cases(mutant, cases))
        except BaseException as error:  # a crash is reported, never a silent kill
            payload = json.dumps([f"crashed: {error!r}"])
        out.write_text(payload, encoding="utf-8")
    finally:
        os._exit(0)  # never back into the parent's code


def score(cases_file: Path, names: list[str] | None = None, jobs: int = JOBS) -> dict[str, dict[str, Any]]:
    """Per mutant: whether it is expressible and which cases it failed (each in a forked child, ``jobs`` at once)."""
    import ccweb_conformance.checks.replay  # noqa: F401, PLC0415 (imported once, before forking)

    cases = json.loads(cases_file.read_text(encoding="utf-8"))["cases"]
    wanted = names or list(MUTANTS)
    failed: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="ccweb-cases-score-") as folder:
        running: deque[tuple[int, str, Path]] = deque()
        try:
            for index, name in enumerate(wanted):
                out = Path(folder) / f"{index}.json"
                pid = os.fork()
                if pid == 0:  # the child
                    _replay_in_child(MUTANTS[name], cases, out)
                running.append((pid, name, out))
                while len(running) >= jobs or (running and index == len(wanted) - 1):
                    oldest, done, written = running.popleft()
                    os.waitpid(oldest, 0)  # this child only: the test process may have children of its own
                    failed[done] = json.loads(written.read_text(encoding="utf-8")) if written.exists() else []
        finally:  # interrupted: no child outlives the score
            for pid, _, _ in running:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
    return {name: {"expressible": expressible(MUTANTS[name], cases), "failed": failed[name]} for name in wanted}


def main(argv: list[str]) -> int:
    """Print the score; exit 1 when an expressible mutant survives."""
    results = score(Path(argv[0]) if argv else Path("examples/node-server/contract/cases.json"))
    survivors = [n for n, r in results.items() if r["expressible"] and not r["failed"]]
    for name, result in results.items():
        verdict = "killed" if result["failed"] else "survived"
        level = "function-level" if result["expressible"] else "MCP-level"
        print(f"{name:40} {level:15} {verdict:9} {len(result['failed'])} cases")
    expressible_count = sum(r["expressible"] for r in results.values())
    killed = sum(bool(r["failed"]) for r in results.values())
    print(f"{expressible_count - len(survivors)} of {expressible_count} function-level mutants killed; "
          f"{killed} of {len(results)} mutants in all")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
