"""Benchmark: what starting the stdio reference costs, alone and as a fork of the run's fork server.

    .venv/bin/python bench/bench_reference_start.py              # medians of 5
    .venv/bin/python bench/bench_reference_start.py --repeat 9

Three tables, every figure a median of ``--repeat`` runs, CPU = user + system seconds:

* imports: a fresh interpreter that imports one module and exits (``python -c "import X"``),
  from bare Python to the whole stdio reference, the SDK's modules both plainly and as
  :mod:`ccweb_reference.sdk` loads them (package ``__init__`` files, version-free and era models
  deferred);
* a standalone ``ccweb-reference`` over stdio, from its start to its answer to ``initialize``
  (the process ends right after: its CPU is what one server of a run would cost without the
  fork server);
* a server forked by the fork server (``ccweb_conformance.transport.zygote_client``): wall time from the
  request to the answer to ``initialize``, and the child's own CPU; plus the fork server's own
  start (its imports, paid once per run).

Figures are printed, never judged; the 1-minute load average is printed first.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import psutil

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    }
)
_AS_THE_REFERENCE = (
    "import ccweb_reference.sdk_loading as s; s.defer_package_inits(); s.import_types_deferred(); "
    "s.defer_era_models(); "
)
IMPORTS = {
    "bare Python": "pass",
    "ccweb_reference.core (the transport-free core)": "import ccweb_reference.core",
    "mcp_types (the version-free types, built at import)": "import mcp_types",
    "mcp_types, the version-free models deferred (as the reference and the runner load them)": (
        "import ccweb_reference.sdk_loading as s; s.import_types_deferred()"
    ),
    "mcp_types.methods (plus both eras' wire models, built at import)": "import mcp_types.methods",
    "mcp_types.methods, the era models deferred (as the reference loaded them in session 12)": (
        "import ccweb_reference.sdk_loading as s; s.defer_era_models(); import mcp_types.methods"
    ),
    "mcp_types.methods, both kinds deferred (as the reference and the runner load them)": (
        "import ccweb_reference.sdk_loading as s; s.import_types_deferred(); s.defer_era_models();"
        " import mcp_types.methods"
    ),
    "import mcp (the SDK package, client included)": "import mcp",
    "mcp.server.lowlevel.server, plainly (package inits; Starlette, uvicorn)": "import mcp.server.lowlevel.server",
    "mcp.server.runner as the reference loads it (the server without its HTTP modules)": (
        _AS_THE_REFERENCE + "import mcp.server.runner"
    ),
    "mcp.server.lowlevel.server as the reference loads it": _AS_THE_REFERENCE + "import mcp.server.lowlevel.server",
    "ccweb_reference.cli (the whole stdio reference)": "import ccweb_reference.cli",
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(run: Callable[[], None]) -> tuple[float, float]:
    """(wall, CPU of the children it waited for) of one call."""
    cpu, wall = _children_cpu(), time.perf_counter()
    run()
    return time.perf_counter() - wall, _children_cpu() - cpu


def _import(statement: str) -> None:
    subprocess.run([sys.executable, "-c", statement], check=True)


def _standalone(sessions: str) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", sessions],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(INITIALIZE.encode() + b"\n")
    process.stdin.flush()
    process.stdout.readline()  # the answer: from here on the process only winds down
    process.kill()
    process.wait()


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (default 5)")
    parser.add_argument(
        "--servers-only",
        action="store_true",
        help="skip the imports table (e.g. to time an older checkout put first on PYTHONPATH)",
    )
    args = parser.parse_args()
    print(f"load average (1 min): {os.getloadavg()[0]:.2f}; {args.repeat} runs per figure\n")

    if not args.servers_only:
        _imports(args.repeat)
    with tempfile.TemporaryDirectory() as sessions:
        runs = [_timed(lambda: _standalone(sessions)) for _ in range(args.repeat)]
        print("| server | wall s to its first answer | CPU s |\n|---|---:|---:|")
        wall, cpu = _median([w for w, _ in runs]), _median([c for _, c in runs])
        print(f"| standalone `ccweb-reference` (stdio) | {wall} | {cpu} |")
        _forked(sessions, args.repeat)
    return 0


def _imports(repeat: int) -> None:
    print("| import | wall s | CPU s |\n|---|---:|---:|")
    for label, statement in IMPORTS.items():
        runs = [_timed(lambda s=statement: _import(s)) for _ in range(repeat)]
        print(f"| {label} | {_median([w for w, _ in runs])} | {_median([c for _, c in runs])} |")
    print()


def _forked(sessions: str, repeat: int) -> None:
    from ccweb_conformance.transport.zygote_client import Zygote  # noqa: PLC0415

    starts, walls, cpus = [], [], []
    for _ in range(repeat):
        started = time.perf_counter()
        zygote = Zygote()
        starts.append((time.perf_counter() - started, sum(psutil.Process(zygote.pid).cpu_times()[:2])))
        try:
            for _ in range(repeat):
                begun = time.perf_counter()
                child = zygote.spawn(["ccweb-reference", "--sessions-dir", sessions], dict(os.environ))
                assert child.stdin is not None and child.stdout is not None
                child.stdin.write(INITIALIZE.encode() + b"\n")
                child.stdin.flush()
                child.stdout.readline()
                walls.append(time.perf_counter() - begun)
                cpus.append(sum(psutil.Process(child.pid).cpu_times()[:2]))
                child.stdin.close()
                child.wait(10)
        finally:
            zygote.stop()
    print(
        f"| fork server's own start (once per run) | {_median([w for w, _ in starts])} | "
        f"{_median([c for _, c in starts])} |"
    )
    print(f"| each server forked from it | {_median(walls)} | {_median(cpus)} |")


if __name__ == "__main__":
    sys.exit(main())
