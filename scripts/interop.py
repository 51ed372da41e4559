#!/usr/bin/env python3
"""Interop with the MCP ecosystem: the kit's servers under the tools other projects trust.

1. The official MCP conformance suite (``@modelcontextprotocol/conformance``, server
   scenarios) against the reference over Streamable HTTP, gated by
   ``interop/conformance-baseline.yaml`` (scenarios that do not apply to a one-tool server).
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


@dataclass
class ConformanceResult:
    scenarios: dict[str, str] = field(default_factory=dict)  # name -> passed / failed
    exit_code: int = 0
    output: str = ""

    def names(self, status: str) -> list[str]:
        return sorted(name for name, value in self.scenarios.items() if value == status)


def load_baseline() -> dict[str, dict[str, str]]:
    """The baseline's reasons, after checking they cover exactly its ``server`` list."""
    document = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))
    listed, reasons = set(document["server"]), document["reasons"]
    if listed != set(reasons):
        sys.exit(f"interop: {BASELINE.name}: server list and reasons differ: {sorted(listed ^ set(reasons))}")
    return {name: reasons[name] for name in sorted(listed)}


def scenario_status(checks: list[dict[str, Any]]) -> str:
    """failed when a check failed or warned (the suite's own baseline rule), else passed."""
    return "failed" if any(c.get("status") in ("FAILURE", "WARNING") for c in checks) else "passed"


def run_conformance(bin_dir: Path, url: str, suite: str) -> ConformanceResult:
    with tempfile.TemporaryDirectory(prefix="ccweb-conformance-") as output_dir:
        command = [str(bin_dir / "conformance"), "server", "--url", url, "--suite", suite]
        command += ["--expected-failures", str(BASELINE), "-o", output_dir]
        completed = run(command, env=tool_env(bin_dir))
        result = ConformanceResult(exit_code=completed.returncode, output=completed.stdout + completed.stderr)
        for checks_file in sorted(Path(output_dir).glob("*/checks.json")):
            # Folders are named server-<scenario>-<timestamp>.
            name = re.sub(r"^server-|-\d{4}-\d{2}-\d{2}T[\d-]+Z$", "", checks_file.parent.name)
            result.scenarios[name] = scenario_status(json.loads(checks_file.read_text(encoding="utf-8")))
    return result


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
    reasons = load_baseline()
    ok = True
    with sessions_dir() as sessions, reference_over_http(sessions) as url:
        conformance = run_conformance(bin_dir, url, options.suite)
        inspected = {t.label: check_inspector(bin_dir, t) for t in inspector_targets(sessions, url)}

    if options.verbose:
        print(conformance.output)
    passed, failed = conformance.names("passed"), conformance.names("failed")
    not_applicable = [name for name in failed if name in reasons]
    unexpected = [name for name in failed if name not in reasons]
    stale = [name for name in passed if name in reasons]
    print(
        f"official conformance (@modelcontextprotocol/conformance {tool_version('@modelcontextprotocol/conformance')}, "
        f"suite {options.suite}, reference over HTTP): {len(conformance.scenarios)} scenarios: "
        f"{len(passed)} passed, {len(unexpected)} failed, {len(not_applicable)} not applicable (baseline)"
        + (f", {len(stale)} stale baseline entries" if stale else "")
    )
    print(f"  passed: {', '.join(passed)}")
    for name in unexpected:
        print(f"  FAILED: {name}")
    for name in stale:
        print(f"  STALE BASELINE ENTRY (passes now): {name}")
    if unexpected or stale or conformance.exit_code != 0 or not conformance.scenarios:
        ok = False
        if not options.verbose:
            print(conformance.output[-3000:])

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
