#!/usr/bin/env python3
"""Interop with the MCP ecosystem: the kit's servers under the tools other projects trust.

1. The official MCP conformance suite (``@modelcontextprotocol/conformance``, server
   scenarios) against the reference over Streamable HTTP, twice: ``--suite all`` (each scenario
   at its default revision) and ``--requirements 2026-07-28`` (what that revision requires, at its
   wire). Both are gated by ``interop/conformance-baseline.yaml``: the checks that do not apply to
   a one-tool server, one ``scenario:check`` entry each; a regression, a stale entry or an entry
   no run produced fails the run.
2. The MCP Inspector CLI (``@modelcontextprotocol/inspector --cli``) lists the tools and calls
   ``ccweb_list_user_inputs`` (one success, one contract error) over stdio and HTTP against
   the reference, and over stdio against the Node example (examples/node-server).

The tools are pinned in ``interop/tools/package.json`` + ``package-lock.json`` and installed
with ``npm ci`` from the npm registry, Node 22 included (the conformance suite needs it), so
only Node 20+ and npm must be on the machine. Exit 0 when everything passed, 1 otherwise.

    .venv/bin/python scripts/interop.py            # from the repository root
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "interop" / "tools"
BASELINE = ROOT / "interop" / "conformance-baseline.yaml"
NODE_EXAMPLE = ROOT / "examples" / "node-server"
TOOL_NAME = "ccweb_list_user_inputs"
SOURCE_HEADER = "X-CCWeb-Session-Id"
CONVERSATION_ID = "0c0e1c1a-7e57-4b2a-9a11-1e7e20000001"
# A cc-web session file as cc-web writes it; the tool must return the two user inputs.
CONVERSATION = {
    "id": CONVERSATION_ID,
    "title": "interop",
    "created": "2026-01-01T10:00:00.000Z",
    "updated": "2026-01-01T10:05:00.000Z",
    "agent": "claude",
    "hasUnread": False,
    "messages": [
        {"role": "user", "content": "Add a dark mode toggle \U0001f319", "timestamp": "2026-01-01T10:00:00.000Z"},
        {"role": "assistant", "content": "Done.", "timestamp": "2026-01-01T10:01:00.000Z"},
        {"role": "user", "content": "Keep the old colours as the default", "timestamp": "2026-01-01T10:02:00.000Z"},
    ],
}
EXPECTED_CONTENTS = ["Add a dark mode toggle \U0001f319", "Keep the old colours as the default"]
INSPECTOR_TOOL_ERROR_EXIT = 5  # the Inspector CLI's exit code for a result with isError: true
TIMEOUT = 300


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(command: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a command with captured text output and a timeout; never raises on exit codes."""
    return subprocess.run(list(command), capture_output=True, text=True, timeout=TIMEOUT, check=False, **kwargs)


# --- the tools ------------------------------------------------------------------------


def install_tools() -> Path:
    """``npm ci`` in interop/tools unless its node_modules matches the lock; the bin folder."""
    bin_dir = TOOLS / "node_modules" / ".bin"
    installed_lock = TOOLS / "node_modules" / ".package-lock.json"
    if not (installed_lock.is_file() and (bin_dir / "node").exists()):
        npm = shutil.which("npm")
        if npm is None:
            sys.exit("interop: npm is not on PATH (Node 20+ with npm is needed to fetch the tools)")
        log("interop: npm ci in interop/tools (Node 22, conformance suite, Inspector) ...")
        completed = run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS)
        if completed.returncode != 0:
            sys.exit(f"interop: npm ci failed:\n{completed.stdout}{completed.stderr}")
    return bin_dir


def tool_version(package: str) -> str:
    manifest = TOOLS / "node_modules" / package / "package.json"
    version: str = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    return version


def tool_env(bin_dir: Path) -> dict[str, str]:
    """The environment for the tools: their Node 22 first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


# --- the servers ----------------------------------------------------------------------


@contextmanager
def sessions_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ccweb-interop-") as name:
        folder = Path(name) / "sessions"
        folder.mkdir()
        (folder / f"{CONVERSATION_ID}.json").write_text(json.dumps(CONVERSATION, indent=2), encoding="utf-8")
        yield folder


def reference_command() -> list[str]:
    """The reference server, from this interpreter's environment (the kit's .venv)."""
    return [sys.executable, "-m", "ccweb_reference.cli"]


@contextmanager
def reference_over_http(sessions: Path) -> Iterator[str]:
    """Start ``ccweb-reference --http --port 0`` and yield the URL it prints on stderr.

    Its stderr goes to a file (a pipe nobody drains could fill up and stall the server).
    """
    command = [*reference_command(), "--sessions-dir", str(sessions), "--http", "--port", "0"]
    log_file = sessions.parent / "reference.log"
    with log_file.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink)
    try:
        deadline = time.monotonic() + 30
        while (match := re.search(r"serving (http://\S+)", log_file.read_text(encoding="utf-8"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"interop: the reference did not start: {log_file.read_text(encoding='utf-8')}")
            time.sleep(0.1)
        yield match.group(1)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


# --- 1. the official conformance suite ------------------------------------------------

MODERN_REVISION = "2026-07-28"
FAILING = ("FAILURE", "WARNING")  # the suite's own baseline rule: a warning fails a check too
SEVERITY = {"FAILURE": 3, "WARNING": 2, "SUCCESS": 1}
WIRE_CHECKS = ("wire-schema-valid", "wire-schema-harness-error")  # added to every scenario with wire traffic


@dataclass
class ConformanceRun:
    """One run of the official suite: what was asked, its exit code, each scenario's checks."""

    label: str
    selection: list[str]  # --suite NAME or --requirements REVISION
    exit_code: int = 0
    output: str = ""
    checks: dict[str, dict[str, str]] = field(default_factory=dict)  # scenario -> check id -> status

    def failing(self, scenario: str) -> set[str]:
        return {check for check, status in self.checks[scenario].items() if status in FAILING}


@dataclass(frozen=True)
class Judgement:
    """A run's scenarios against the baseline: passed, skipped (no check ran), excused by it; failing checks
    outside it and stale entries."""

    passed: list[str]
    skipped: list[str]
    baselined: list[str]
    failed: list[str]  # "scenario:check" failing without a baseline entry
    stale: list[str]  # "scenario:check" listed in the baseline and passing


def load_baseline() -> set[str]:
    """The baseline's ``scenario:check`` entries, after checking that its reasons name exactly their scenarios."""
    document = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))
    entries, reasons = document["server"], document["reasons"]
    whole = [entry for entry in entries if ":" not in entry]
    if whole:
        sys.exit(f"interop: {BASELINE.name}: name one check per entry (scenario:check-id), not {whole}")
    scenarios = {entry.split(":", 1)[0] for entry in entries}
    if scenarios != set(reasons):
        sys.exit(f"interop: {BASELINE.name}: listed scenarios and reasons differ: {sorted(scenarios ^ set(reasons))}")
    return set(entries)


def collapse(checks: list[dict[str, Any]]) -> dict[str, str]:
    """Each check id's most severe status (ids repeat within a scenario); INFO lines are no verdict."""
    worst: dict[str, str] = {}
    for check in checks:
        status = check.get("status", "")
        if status != "INFO" and SEVERITY.get(status, 0) >= SEVERITY.get(worst.get(check["id"], ""), 0):
            worst[check["id"]] = status
    return worst


def run_conformance(bin_dir: Path, url: str, run_: ConformanceRun) -> ConformanceRun:
    with tempfile.TemporaryDirectory(prefix="ccweb-conformance-") as output_dir:
        command = [str(bin_dir / "conformance"), "server", "--url", url, *run_.selection]
        command += ["--expected-failures", str(BASELINE), "-o", output_dir]
        completed = run(command, env=tool_env(bin_dir))
        run_.exit_code, run_.output = completed.returncode, completed.stdout + completed.stderr
        for checks_file in sorted(Path(output_dir).glob("*/checks.json")):
            # Folders are named server-<scenario>-<timestamp>.
            name = re.sub(r"^server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks_file.parent.name)
            run_.checks[name] = collapse(json.loads(checks_file.read_text(encoding="utf-8")))
    return run_


def judge(run_: ConformanceRun, baseline: set[str]) -> Judgement:
    """Each scenario of ``run_`` against the baseline's entries, check by check."""
    passed, skipped, baselined, failed, stale = [], [], [], [], []
    for scenario in sorted(run_.checks):
        failing = {f"{scenario}:{check}" for check in run_.failing(scenario)}
        failed += sorted(failing - baseline)
        passing = {f"{scenario}:{check}" for check, status in run_.checks[scenario].items() if status == "SUCCESS"}
        stale += sorted(passing & baseline)
        if failing:
            baselined += [scenario] if failing <= baseline else []
        elif any(entry.split(":", 1)[1] not in WIRE_CHECKS for entry in passing):
            passed.append(scenario)
        else:  # its own checks all skipped (a wire-schema check alone shows nothing of the scenario): no pass
            skipped.append(scenario)
    return Judgement(passed, skipped, baselined, failed, stale)


def never_seen(runs: list[ConformanceRun], baseline: set[str]) -> list[str]:
    """Entries whose scenario and check no run produced (renamed or gone in this version of the suite)."""
    seen = {f"{scenario}:{check}" for r in runs for scenario, checks in r.checks.items() for check in checks}
    return sorted(baseline - seen)


def report_conformance(runs: list[ConformanceRun], baseline: set[str], *, complete: bool, verbose: bool) -> bool:
    """Print each run's summary; True when every run exited 0 with no regression and no stale entry."""
    ok = True
    version = tool_version("@modelcontextprotocol/conformance")
    for run_ in runs:
        verdict = judge(run_, baseline)
        judged = len(verdict.passed) + len(verdict.skipped) + len(verdict.baselined)
        statuses = [status for checks in run_.checks.values() for status in checks.values()]
        print(
            f"official conformance (@modelcontextprotocol/conformance {version}, {run_.label}, reference over HTTP): "
            f"{len(run_.checks)} scenarios: {len(verdict.passed)} passed, {len(verdict.skipped)} skipped, "
            f"{len(verdict.baselined)} failing baselined checks only, {len(run_.checks) - judged} failed; "
            f"checks: {statuses.count('SUCCESS')} passed, {statuses.count('SKIPPED')} skipped, "
            f"{sum(status in FAILING for status in statuses) - len(verdict.failed)} in the baseline, "
            f"{len(verdict.failed)} failed"
        )
        print(f"  passed: {', '.join(verdict.passed)}")
        print(f"  skipped (every check of its own skipped by the suite): {', '.join(verdict.skipped) or 'none'}")
        for entry in verdict.failed:
            print(f"  FAILED (not in the baseline): {entry}")
        for entry in verdict.stale:
            print(f"  STALE BASELINE ENTRY (passes now): {entry}")
        if verdict.failed or verdict.stale or run_.exit_code != 0 or not run_.checks:
            ok = False
            print(f"  the suite exited {run_.exit_code}")
            if not verbose:
                print(run_.output[-3000:])
        if verbose:
            print(run_.output)
    gone = never_seen(runs, baseline) if complete else []
    for entry in gone:
        print(f"  STALE BASELINE ENTRY (no run has this check): {entry}")
    return ok and not gone


# --- 2. the Inspector CLI -------------------------------------------------------------


@dataclass
class InspectorTarget:
    label: str
    target: list[str]  # a URL or a command, as the Inspector CLI takes it
    before: list[str] = field(default_factory=list)  # options before the target (-e KEY=VALUE)
    after: list[str] = field(default_factory=list)  # options after the method (--header is variadic)


def inspector(bin_dir: Path, target: InspectorTarget, *method: str) -> tuple[int, Any, str]:
    """One Inspector CLI call: (exit code, parsed JSON output or None, raw output)."""
    command = [str(bin_dir / "inspector"), "--cli", *target.before, *target.target, *method, *target.after]
    with tempfile.TemporaryDirectory(prefix="ccweb-inspector-") as home:
        # Its catalog and storage stay out of ~; OAuth secrets (unused here) stay in memory.
        env = tool_env(bin_dir) | {"HOME": home, "MCP_INSPECTOR_SECRET_STORE": "memory"}
        completed = run(command, env=env, cwd=ROOT)
    try:
        document = json.loads(completed.stdout)
    except json.JSONDecodeError:
        document = None
    return completed.returncode, document, completed.stdout + completed.stderr


def check_inspector(bin_dir: Path, target: InspectorTarget) -> dict[str, str]:
    """tools/list, a successful call and a contract error: each "OK" or what went wrong."""
    outcome: dict[str, str] = {}
    code, listed, raw = inspector(bin_dir, target, "--method", "tools/list")
    tools = [t.get("name") for t in listed.get("tools", [])] if isinstance(listed, dict) else []
    outcome["list"] = "OK" if code == 0 and tools == [TOOL_NAME] else f"exit {code}, tools {tools}: {raw[-500:]}"

    call = ["--method", "tools/call", "--tool-name", TOOL_NAME]
    code, result, raw = inspector(bin_dir, target, *call, "--tool-arg", "limit=5")
    structured = result.get("structuredContent", {}) if isinstance(result, dict) else {}
    contents = [item.get("content") for item in structured.get("items", [])]
    texts = [json.loads(c["text"]) for c in result.get("content", []) if c.get("type") == "text"] if result else []
    good = code == 0 and structured.get("ok") is True and contents == EXPECTED_CONTENTS and texts == [structured]
    outcome["call"] = "OK" if good else f"exit {code}: {raw[-500:]}"

    code, _, raw = inspector(bin_dir, target, *call, "--tool-arg", "limit=0")
    good = code == INSPECTOR_TOOL_ERROR_EXIT and '"code": "invalid_arguments"' in raw
    outcome["error call"] = "OK" if good else f"exit {code}: {raw[-500:]}"
    return outcome


def inspector_targets(sessions: Path, url: str) -> list[InspectorTarget]:
    stdio_env = ["-e", f"CC_WEB_SESSIONS_DIR={sessions}", "-e", f"CCWEB_SESSION_ID={CONVERSATION_ID}"]
    return [
        InspectorTarget("reference, stdio", reference_command(), before=stdio_env),
        InspectorTarget("reference, HTTP", [url], after=["--header", f"{SOURCE_HEADER}: {CONVERSATION_ID}"]),
        InspectorTarget("Node example, stdio", ["node", str(NODE_EXAMPLE / "server.js")], before=stdio_env),
    ]


def install_node_example() -> None:
    if not (NODE_EXAMPLE / "node_modules").is_dir():
        log("interop: npm ci in examples/node-server ...")
        completed = run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_EXAMPLE)
        if completed.returncode != 0:
            sys.exit(f"interop: npm ci failed in examples/node-server:\n{completed.stdout}{completed.stderr}")


# --- the whole run --------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", default="all", help="conformance suite: all (default), active or pending")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the conformance suite's own output")
    options = parser.parse_args(argv)

    bin_dir = install_tools()
    install_node_example()
    baseline = load_baseline()
    runs = [
        ConformanceRun(f"suite {options.suite}", ["--suite", options.suite]),
        ConformanceRun(f"requirements {MODERN_REVISION}", ["--requirements", MODERN_REVISION]),
    ]
    with sessions_dir() as sessions, reference_over_http(sessions) as url:
        for run_ in runs:
            run_conformance(bin_dir, url, run_)
        inspected = {t.label: check_inspector(bin_dir, t) for t in inspector_targets(sessions, url)}

    ok = report_conformance(runs, baseline, complete=options.suite == "all", verbose=options.verbose)
    print(f"MCP Inspector CLI (@modelcontextprotocol/inspector {tool_version('@modelcontextprotocol/inspector')}):")
    for label, outcome in inspected.items():
        print(f"  {label}: " + ", ".join(f"{step} {'OK' if v == 'OK' else 'FAILED'}" for step, v in outcome.items()))
        for step, value in outcome.items():
            if value != "OK":
                ok = False
                print(f"    {step}: {value}")
    print(f"interop: {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
