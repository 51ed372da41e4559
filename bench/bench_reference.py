"""Benchmark: the reference's tools/call latency and memory, its floors and peers, and the runner's speed.

    .venv/bin/python bench/bench_reference.py            # everything, about 3-5 minutes
    .venv/bin/python bench/bench_reference.py --quick    # 10 and 1,000 messages only, no suite runs
    .venv/bin/python bench/bench_reference.py --json bench.json   # also write the raw figures

Every call goes through the kit's raw clients (conformance/transport) with the reply's MCP
schema check switched off in this process, so the times are the server's plus the wire.
Figures are medians (p95 beside them); the machine is shared and noisy, so compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import psutil

import ccweb_spec
from ccweb_conformance.fuzz.phase import run_fuzz
from ccweb_conformance.fuzz.settings import FuzzSettings
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.profile.conversation import cc_web_bytes
from ccweb_conformance.profile.conversation import conversation as generated_conversation
from ccweb_conformance.profile.proc import high_water_mark
from ccweb_conformance.transport.channel import Channel
from ccweb_conformance.transport.httpchannel import HttpChannel
from ccweb_conformance.transport.linechannel import LineChannel
from ccweb_conformance.transport.lines import ProcessLineIO
from ccweb_conformance.transport.process import ServerProcess
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.targets import HttpCommandTarget, StdioTarget, Target, free_port
from ccweb_conformance.values import target_of
from ccweb_reference.cache import SETTLE_NS

HERE = Path(__file__).resolve().parent
PYTHON = shlex.quote(sys.executable)
TOOL = "ccweb_list_user_inputs"
CONVERSATION = "bench-00000000-0000-4000-8000-000000000000"
IMPLEMENTATIONS = {
    "reference": f"{PYTHON} -m ccweb_reference.cli --sessions-dir {{sessions_dir}}",
    "naive peer": f"{PYTHON} {shlex.quote(str(HERE / 'naive_peer.py'))} --sessions-dir {{sessions_dir}}",
}


def conversation(messages: int, seed: int = 0) -> dict[str, Any]:
    """A realistic cc-web session (the profile's generator): users, and assistants with toolCalls."""
    return generated_conversation(messages, CONVERSATION, seed)


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "n": len(ordered)}


def _timed(action: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def _rss_kb(pid: int) -> float:
    """Resident memory of one process now, in KiB (psutil: Linux and macOS)."""
    return float(psutil.Process(pid).memory_info().rss) / 1024


def _rchar(pid: int) -> int:
    """Bytes one process read through read(2)-like calls (rchar: psutil counts it on Linux only)."""
    return int(psutil.Process(pid).io_counters().read_chars)


def _peak_kb(pid: int) -> float:
    """The resident high-water mark in KiB (VmHWM: Linux; psutil does not report it), else resident memory now."""
    mark = high_water_mark(pid)
    return _rss_kb(pid) if mark is None else mark / 1024


def _server_pid(target: Target) -> int:
    pid = target.server_pid()
    assert pid is not None, "the bench measures servers it spawned"
    return pid


@contextmanager
def _target(kind: str, command: str, sessions_dir: Path) -> Iterator[Target]:
    if kind == "stdio":
        target: Target = StdioTarget(command, sessions_dir, protocol="legacy")
    else:
        target = HttpCommandTarget(
            f"{command} --http --port {{port}}", "http://127.0.0.1:{port}/mcp", sessions_dir, protocol="legacy"
        )
    target.check_messages = False  # time the server and the wire, not the client's schema check
    try:
        yield target
    finally:
        target.close()


@dataclass
class Latency:
    """One implementation, transport and size."""

    implementation: str
    transport: str
    messages: int
    file_mb: float
    startup_s: float
    first: dict[str, float]
    repeated: dict[str, float]
    idle_rss_mb: float
    """VmRSS of the server after its handshake, before any call."""
    peak_rss_mb: float
    read_per_repeated_call_mb: float
    """Bytes the server process read per repeated call (rchar, through psutil): ~file size = re-read."""


def measure_latency(
    implementation: str, transport: str, path: Path, messages: int, repeats: tuple[int, int]
) -> Latency:
    """Start a fresh server, then time first calls after a change and repeated calls."""
    data = path.read_bytes()
    arguments = {"conversationId": CONVERSATION}
    started = time.perf_counter()
    with _target(transport, IMPLEMENTATIONS[implementation], path.parent) as target:
        client = target.client(None)
        startup = time.perf_counter() - started
        pid = _server_pid(target)
        idle = _rss_kb(pid) / 1024

        def call() -> None:
            exchange = client.call_tool(TOOL, arguments)
            assert exchange.response is not None and "result" in exchange.response, exchange.received_text[:300]

        call()  # warm: imports, first parse
        first: list[float] = []
        for change in range(repeats[0]):
            path.write_bytes(
                data.replace(b'"updated": "2026-11-30T09:30:00.000Z"', f'"updated": "{change:024d}"'.encode())
            )
            first += _timed(call, 1)
        path.write_bytes(data)  # then leave it unchanged long enough for a cache to trust its times
        time.sleep(SETTLE_NS / 1e9 + 0.5)
        call()
        before = _rchar(pid)
        repeated = _timed(call, repeats[1])
        read = (_rchar(pid) - before) / repeats[1]
        peak = _peak_kb(pid) / 1024
    return Latency(
        implementation,
        transport,
        messages,
        len(data) / 1e6,
        startup,
        _summary(first),
        _summary(repeated),
        idle,
        peak,
        read / 1e6,
    )


class _Trivial(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = -1  # headers and body leave in one write (no delayed-ACK stall)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        reply = json.dumps({"jsonrpc": "2.0", "id": body.get("id"), "result": {}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def trivial_stdio() -> None:
    """A trivial JSON-RPC server over stdio: every request gets an empty result."""
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": {}}) + "\n")
        sys.stdout.flush()


def trivial_http(port: int) -> None:
    """A trivial JSON-RPC server over HTTP/1.1 (keep-alive)."""
    ThreadingHTTPServer(("127.0.0.1", port), _Trivial).serve_forever()


def _wait_for_port(port: int, deadline_s: float = 30.0) -> None:
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the trivial HTTP server did not listen on port {port}")


def round_trip(transport: str, repeat: int = 300) -> dict[str, float]:
    """A raw JSON-RPC round trip (a tools/call-sized request) to a trivial server."""
    script = shlex.quote(str(Path(__file__).resolve()))
    channel: Channel
    if transport == "stdio":
        process = ServerProcess(shlex.split(f"{PYTHON} {script} --trivial-stdio"), dict(os.environ), stdio=True)
        channel = LineChannel(ProcessLineIO(process), label="trivial stdio")
    else:
        port = free_port()
        process = ServerProcess(shlex.split(f"{PYTHON} {script} --trivial-http {port}"), dict(os.environ), stdio=False)
        _wait_for_port(port)
        channel = HttpChannel(f"http://127.0.0.1:{port}/", base_headers={}, label="trivial http")
    counter = iter(range(1, 10**9))
    try:

        def once() -> None:
            number = next(counter)
            request = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": TOOL, "arguments": {"conversationId": CONVERSATION}},
            }
            channel.send(json.dumps(request), wait=number, headers={}, timeout=10.0, answer=lambda _: None)

        for _ in range(20):
            once()
        return _summary(_timed(once, repeat))
    finally:
        channel.close()
        process.stop()


def decode_floor(path: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Reading the file's bytes, and bare ``json.loads`` of them, in this process."""
    data = path.read_bytes()
    return {
        "read": _summary(_timed(path.read_bytes, max(repeat, 5))),
        "json_loads": _summary(_timed(lambda: json.loads(data), repeat)),
    }


@dataclass
class SuiteTime:
    """One ``ccweb-conformance run`` against the reference."""

    transport: str
    wall_s: float
    startup_s: float
    fixtures_s: float
    calls_s: float
    other_s: float
    scenarios: int
    passed: bool


def _given_seconds(steps: list[dict[str, Any]]) -> float:
    """Time in Given steps (And/But continue the step kind before them): writing the fixtures."""
    kind, total = "", 0.0
    for step in steps:
        keyword = step["keyword"].strip()
        kind = keyword if keyword in ("Given", "When", "Then") else kind
        total += step["durationSeconds"] if kind == "Given" else 0.0
    return total


def suite_time(transport: str, workdir: Path) -> SuiteTime:
    """Wall time of the whole suite, split with the JSON report's step durations and exchange times."""
    report = workdir / f"suite-{transport}.json"
    command = [str(Path(sys.executable).with_name("ccweb-conformance")), "run", "--json", str(report)]
    if transport == "http":
        reference = IMPLEMENTATIONS["reference"]
        command += ["--http-cmd", f"{reference} --http --port {{port}}", "--url", "http://127.0.0.1:{port}/mcp"]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    data = json.loads(report.read_text(encoding="utf-8"))
    scenarios = data["scenarios"]
    in_scenarios = sum(s["durationSeconds"] for s in scenarios)
    fixtures = sum(_given_seconds(s["steps"]) for s in scenarios)
    calls = sum(e["elapsedMs"] for s in scenarios for e in s["transcript"]) / 1000
    return SuiteTime(
        transport,
        wall,
        wall - in_scenarios,
        fixtures,
        calls,
        in_scenarios - fixtures - calls,
        len(scenarios),
        completed.returncode == 0,
    )


def fuzz_throughput(count: int) -> dict[str, float]:
    """Cases per second of ``--fuzz COUNT --seed 1`` per target."""
    reference = IMPLEMENTATIONS["reference"]
    targets = {
        "in-process": target_of(RunnerOptions(in_process=True)),
        "stdio": target_of(RunnerOptions(stdio=reference)),
        "http": target_of(
            RunnerOptions(http_cmd=f"{reference} --http --port {{port}}", url="http://127.0.0.1:{port}/mcp")
        ),
    }
    rates = {}
    for name, target in targets.items():
        run = run_fuzz(target, FuzzSettings(count, 1), RunContext())  # a run of its own
        assert run.passed, run.mismatch or run.error
        rates[name] = run.throughput
    return rates


@dataclass
class Results:
    """Everything measured."""

    machine: dict[str, Any]
    sizes: dict[int, float] = field(default_factory=dict)
    latencies: list[Latency] = field(default_factory=list)
    floors: dict[int, dict[str, dict[str, float]]] = field(default_factory=dict)
    round_trips: dict[str, dict[str, float]] = field(default_factory=dict)
    suites: list[SuiteTime] = field(default_factory=list)
    fuzz: dict[str, float] = field(default_factory=dict)


def machine() -> dict[str, Any]:
    """What this ran on."""
    memory = psutil.virtual_memory().total / 1024  # KiB, as /proc/meminfo's MemTotal
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return {
        "cpus": os.cpu_count(),
        "memory_gb": round(memory / 1024 / 1024, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_at_start": round(load, 2),
    }


def _json_loads_ms(results: Results, messages: int) -> float:
    return results.floors[messages]["json_loads"]["median_ms"] if messages in results.floors else float("nan")


def render(results: Results) -> str:
    """The tables, as Markdown."""
    lines = [
        f"machine: {results.machine}",
        "",
        "| implementation | transport | messages | file MB | first call median (p95) ms | first / json.loads "
        "| repeated median (p95) ms | read per repeated call MB | idle RSS MB | peak RSS MB | (peak - idle) / file "
        "| start-up s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results.latencies:
        cells = [
            r.implementation,
            r.transport,
            f"{r.messages:,}",
            f"{r.file_mb:.1f}",
            f"{r.first['median_ms']:.1f} ({r.first['p95_ms']:.1f})",
            f"{r.first['median_ms'] / _json_loads_ms(results, r.messages):.2f}x" if r.messages >= 1_000 else "",
            f"{r.repeated['median_ms']:.2f} ({r.repeated['p95_ms']:.2f})",
            f"{r.read_per_repeated_call_mb:.2f}",
            f"{r.idle_rss_mb:.0f}",
            f"{r.peak_rss_mb:.0f}",
            f"{(r.peak_rss_mb - r.idle_rss_mb) / r.file_mb:.2f}x" if r.messages >= 100_000 else "",
            f"{r.startup_s:.2f}",
        ]
        lines.append(f"| {' | '.join(cells)} |")
    lines += [
        "",
        "| messages | file MB | read bytes ms | json.loads ms | floor stdio ms | floor HTTP ms |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for messages, floor in results.floors.items():
        read = floor["read"]["median_ms"]
        trips = {t: read + results.round_trips[t]["median_ms"] for t in results.round_trips}
        lines.append(
            f"| {messages:,} | {results.sizes[messages]:.1f} | {read:.2f} | {floor['json_loads']['median_ms']:.1f} "
            f"| {trips.get('stdio', 0):.2f} | {trips.get('http', 0):.2f} |"
        )
    if results.round_trips:
        lines += [
            "",
            "raw round trip to a trivial server: "
            + ", ".join(f"{t} {v['median_ms']:.3f} ms (p95 {v['p95_ms']:.3f})" for t, v in results.round_trips.items()),
        ]
    if results.suites:
        lines += [
            "",
            "| suite against the reference | wall s | start-up s | fixtures s | calls s | other s | scenarios | ok |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for t in results.suites:
            cells = [f"{v:.2f}" for v in (t.wall_s, t.startup_s, t.fixtures_s, t.calls_s, t.other_s)]
            lines.append(f"| {t.transport} | {' | '.join(cells)} | {t.scenarios} | {t.passed} |")
    if results.fuzz:
        lines += [
            "",
            "fuzz throughput (--fuzz N --seed 1): "
            + ", ".join(f"{k} {v:.1f} cases/s" for k, v in results.fuzz.items()),
        ]
    verdicts = target_verdicts(results)
    if verdicts:
        lines += ["", "| goal (spec/ccweb_spec/performance.yaml) | measured | met |", "|---|---|---|"]
        lines += [f"| {target} | {measured} | {'yes' if met else 'NO'} |" for target, measured, met in verdicts]
    return "\n".join(lines)


def target_verdicts(results: Results) -> list[tuple[str, str, bool]]:
    """Each reference goal of spec/ccweb_spec/performance.yaml this run measured: (goal, figures, met)."""
    goal = {g["name"]: g["limit"] for g in ccweb_spec.performance()["reference_goals"]}
    rows: list[tuple[str, str, bool]] = []
    by_key = {(r.implementation, r.transport, r.messages): r for r in results.latencies}
    reference = [r for r in results.latencies if r.implementation == "reference"]
    for r in (r for r in reference if r.messages == 100_000):
        ratio = r.first["median_ms"] / _json_loads_ms(results, r.messages)
        rows.append(
            (
                f"100,000 messages, {r.transport}: first call within {goal['first_call_ratio']}x of json.loads",
                f"{r.first['median_ms']:.0f} / {_json_loads_ms(results, r.messages):.0f} ms = {ratio:.2f}x",
                ratio <= goal["first_call_ratio"],
            )
        )
        rows.append(
            (
                f"100,000 messages, {r.transport}: first call at most "
                f"{goal['first_call_ratio_stretch']}x of json.loads",
                f"{ratio:.3f}x",
                ratio <= goal["first_call_ratio_stretch"],
            )
        )
        growth = (r.peak_rss_mb - r.idle_rss_mb) / r.file_mb
        rows.append(
            (
                f"100,000 messages, {r.transport}: peak memory under {goal['memory_multiple']}x the file",
                f"peak {r.peak_rss_mb:.0f} MB - idle {r.idle_rss_mb:.0f} MB = {growth:.2f}x the "
                f"{r.file_mb:.1f} MB file (whole process {r.peak_rss_mb / r.file_mb:.2f}x)",
                growth < goal["memory_multiple"],
            )
        )
    # rchar also counts the request read from stdin or the socket: judged where the file dwarfs it
    sized = [r for r in reference if r.messages >= 1_000]
    if sized:
        worst = max(r.read_per_repeated_call_mb / r.file_mb for r in sized)
        rows.append(
            (
                "repeated calls on an unchanged file do not re-read it",
                f"at most {worst:.2%} of the file read per repeated call (1,000 messages and more)",
                worst < goal["read_fraction"],
            )
        )
    for r in (r for r in reference if r.messages == 10 and r.transport == "stdio"):
        rows.append(
            (
                f"10 messages over stdio: median under {goal['small_stdio_ms']} ms",
                f"first {r.first['median_ms']:.2f} ms, repeated {r.repeated['median_ms']:.2f} ms",
                max(r.first["median_ms"], r.repeated["median_ms"]) < goal["small_stdio_ms"],
            )
        )
    for r in reference:
        peer = by_key.get(("naive peer", r.transport, r.messages))
        if peer is not None:
            rows.append(
                (
                    f"ahead of the naive peer: {r.messages:,} messages, {r.transport}",
                    f"first {r.first['median_ms']:.1f} vs {peer.first['median_ms']:.1f} ms, "
                    f"repeated {r.repeated['median_ms']:.2f} vs {peer.repeated['median_ms']:.2f} ms",
                    r.first["median_ms"] < peer.first["median_ms"]
                    and r.repeated["median_ms"] < peer.repeated["median_ms"],
                )
            )
    for t in results.suites:
        limit = goal["suite_seconds"]
        rows.append(
            (f"suite against the reference, {t.transport}: under {limit} s", f"{t.wall_s:.1f} s", t.wall_s < limit)
        )
    return rows


def main() -> int:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(prog="bench_reference", description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="10 and 1,000 messages only; no suite runs")
    parser.add_argument("--json", type=Path, help="also write the raw figures as JSON")
    parser.add_argument(
        "--parts", default="latency,suite,fuzz", help="comma-separated: latency, suite, fuzz (default: all)"
    )
    parser.add_argument("--sizes", help="comma-separated message counts to measure (default: all of the plan)")
    parser.add_argument("--implementations", help="comma-separated, of: reference, naive peer (default: both)")
    parser.add_argument("--trivial-stdio", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trivial-http", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trivial_stdio:
        trivial_stdio()
        return 0
    if args.trivial_http is not None:
        trivial_http(args.trivial_http)
        return 0
    plan = {10: (20, 200), 1_000: (20, 100)} if args.quick else {10: (20, 200), 1_000: (20, 100), 100_000: (5, 5)}
    if args.sizes:
        plan = {int(n): plan.get(int(n), (5, 5)) for n in args.sizes.split(",")}
    chosen = args.implementations.split(",") if args.implementations else list(IMPLEMENTATIONS)
    parts = set(args.parts.split(","))
    results = Results(machine())
    with tempfile.TemporaryDirectory(prefix="ccweb-bench-") as folder:
        workdir = Path(folder)
        for transport in ("stdio", "http") if "latency" in parts else ():
            results.round_trips[transport] = round_trip(transport)
        for messages, repeats in plan.items() if "latency" in parts else ():
            sessions = workdir / f"sessions-{messages}"
            sessions.mkdir()
            path = sessions / f"{CONVERSATION}.json"
            path.write_bytes(cc_web_bytes(conversation(messages)))
            results.sizes[messages] = path.stat().st_size / 1e6
            results.floors[messages] = decode_floor(path, 3 if messages >= 100_000 else 20)
            for transport in ("stdio", "http"):
                for implementation in chosen:
                    results.latencies.append(measure_latency(implementation, transport, path, messages, repeats))
                    print(f"  measured {implementation} over {transport} at {messages:,} messages", file=sys.stderr)
        if "suite" in parts and not args.quick:
            results.suites = [suite_time(t, workdir) for t in ("stdio", "http")]
        if "fuzz" in parts:
            results.fuzz = fuzz_throughput(100 if args.quick else 300)
    print(render(results), flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(asdict(results), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
