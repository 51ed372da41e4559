"""The runner as a CI gate: misbehaving servers, how a run against each must end, and a runner.

Shared by ``test_gate.py`` (assertions) and ``gate_table.py`` (prints the done-when table).
Each case is a whole ``ccweb-conformance run`` in a subprocess (through ``peak_runner.py``,
which records the runner's peak memory; or, for the cases :func:`forkable` allows, in a child forked from one
process that imported the kit once) with its own TMPDIR and a marker in its
environment, so that every process of the run, daemons included, can be found in /proc.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

FAKES = Path(__file__).parent / "fakes"
REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
RUN_BOUND = 240.0
"""Seconds a run may take before the test calls it hung (a guard, not a speed check)."""
READ_TIMEOUT = "300"
"""``--timeout`` of the cases where a signal comes while a read waits: far past ``INTERRUPT_BOUND``, so a run that
waits for its read to time out fails the test instead of passing late."""
INTERRUPT_BOUND = 60.0
"""Seconds from its signal a run of those cases may take before the test calls it hung (a guard, not a speed check:
a run ends within about a second of a signal)."""
LISTEN_BOUND = 60.0
"""Seconds a gate fake the test starts itself may take to listen."""
MARK_ENV = "GATE_TEST_MARK"
REPORTS = ("json", "junitxml", "markdown", "cucumberjson")


def gate(kind: str, *words: str) -> str:
    """The command line of the gate fake."""
    if kind == "http":
        return shlex.join([PYTHON, str(FAKES / "gate_server.py"), "http"]) + " {port} " + shlex.join(words)
    return shlex.join([PYTHON, str(FAKES / "gate_server.py"), "stdio", *words])


def stdio(*words: str) -> list[str]:
    return ["--stdio", gate("stdio", *words), "--protocol", "legacy"]


def http(*words: str, path: str = "/mcp") -> list[str]:
    return ["--http-cmd", gate("http", *words), "--url", "http://127.0.0.1:{port}" + path, "--protocol", "legacy"]


REFERENCE = shlex.join([PYTHON, "-m", "ccweb_reference.cli"])
REFERENCE_HTTP = ["--http-cmd", REFERENCE + " --http --port {port} --sessions-dir {sessions_dir}"]


@dataclass(frozen=True)
class Case:
    """One misbehaving server (or a signal) and what the run must make of it."""

    args: list[str]
    code: int
    message: str
    """Text the console (stdout and stderr) or a scenario message of the JSON report contains."""
    reports: bool = True
    """Every requested report must be written."""
    outcome: str | None = None
    """The JSON report's outcome, when reports are written."""
    env: dict[str, str] = field(default_factory=dict)
    signal_after: tuple[int, str] | None = None
    """(signal, text on stderr or how the name of a file the fake writes starts (FILE_CUES), which must appear
    first) for interrupt cases."""
    prefix: list[str] = field(default_factory=list)
    """Words the runner's command starts with (``nohup``: it starts with SIGHUP ignored)."""
    fresh: bool = False
    """The runner in an interpreter of its own, even where it could be forked (:func:`forkable`): its peak memory
    is asserted."""
    server: list[str] | None = None
    """The gate fake's HTTP words for a server the test starts before the run and stops after it: the runner is
    given ``--url`` to it and ``--sessions-dir``, a folder the test checks is empty once the run ended."""
    bound: float = RUN_BOUND
    """Seconds the run may take (from its signal, for interrupt cases) before the test calls it hung."""


STRICT_JSON_FAULTS = {
    "nan": "NaN is not a JSON value (RFC 8259)",
    "dup-envelope": 'duplicate member names "id", "jsonrpc", "result" in one object',
    "latin1": "is not valid UTF-8 (bytes e9 at offset ",
}
"""Gate-server words that break strict JSON (D-16) -> what the PROTO-1 failure says, on every wire."""

UTF16_VERBOSE = [
    "--stdio",
    shlex.join([PYTHON, str(REPO / "tests/mutants/run.py"), "serve", "mutant", "utf16_units"])
    + " --sessions-dir {sessions_dir}",
    "--tags",
    "AC-7",
    "-v",
    "--no-rerun",
]
"""The UTF-16 mutant served over stdio, its AC-7 scenarios, verbose (the console in two encodings). No rerun alone:
a rerun adds only an ASCII line per failure group to the console (and two fresh mutant servers per group)."""


CASES: dict[str, Case] = {
    "sigint-mid-run-stdio": Case(
        [], 130, "interrupted by SIGINT;", outcome="interrupted", signal_after=(signal.SIGINT, "PASSED ")
    ),
    "sigterm-mid-run-stdio": Case(
        [], 143, "interrupted by SIGTERM;", outcome="interrupted", signal_after=(signal.SIGTERM, "PASSED ")
    ),
    "sighup-mid-run-stdio": Case(
        [], 129, "interrupted by SIGHUP;", outcome="interrupted", signal_after=(signal.SIGHUP, "PASSED ")
    ),
    "sighup-under-nohup-ignored": Case(
        ["--tags", "AC-8"], 0, "13 passed", outcome="passed", signal_after=(signal.SIGHUP, "PASSED "), prefix=["nohup"]
    ),
    "sigint-mid-run-http": Case(
        [*REFERENCE_HTTP, "--url", "http://127.0.0.1:{port}/mcp"],
        130,
        "interrupted by SIGINT;",
        outcome="interrupted",
        signal_after=(signal.SIGINT, "PASSED "),
    ),
    "sigterm-mid-run-http": Case(
        [*REFERENCE_HTTP, "--url", "http://127.0.0.1:{port}/mcp"],
        143,
        "interrupted by SIGTERM;",
        outcome="interrupted",
        signal_after=(signal.SIGTERM, "PASSED "),
    ),
    "sigterm-in-the-cancellation-window": Case(
        [*stdio("hold-cancel"), "--tags", "PROTO-5,PROTO-6", "--timeout", "300"],  # two scenarios: they run on workers
        143,
        "interrupted by SIGTERM;",
        outcome="interrupted",
        signal_after=(signal.SIGTERM, "cancelled-"),  # PROTO-5's window is open; nothing comes before the timeout
    ),
    "sigterm-during-a-url-read": Case(
        ["--timeout", READ_TIMEOUT],
        143,
        "interrupted by SIGTERM;",
        outcome="interrupted",
        signal_after=(signal.SIGTERM, "silent-"),  # the server read a call it will never answer: a worker waits on it
        server=["hang"],
        bound=INTERRUPT_BOUND,
    ),
    "sigint-during-start-up": Case(
        stdio("hs-hang"), 130, "interrupted by SIGINT;", outcome="interrupted", signal_after=(signal.SIGINT, "hung-")
    ),
    "http-start-up-500": Case(http("hs=500"), 2, "could not negotiate MCP", reports=False),
    "http-start-up-wrong-content-type": Case(
        http("hs=ctype"), 1, "not run: the implementation broke the protocol during the", outcome="failed"
    ),
    "http-start-up-plain-text": Case(
        http("hs=plain"), 1, "not run: the implementation broke the protocol during the", outcome="failed"
    ),
    "http-start-up-redirect": Case(http("hs=redirect"), 2, "could not negotiate MCP", reports=False),
    "http-wrong-url-path": Case(
        [*REFERENCE_HTTP, "--url", "http://127.0.0.1:{port}/wrong"], 2, "could not negotiate MCP", reports=False
    ),
    "sse-trickle": Case(
        [*http("trickle=6"), "--tags", "AC-8", "--timeout", "2"],  # the third scenario's call: maxChars 6
        1,
        "tools/call: no response within 2 s",
        outcome="failed",
    ),
    "over-the-cap-stdio": Case(
        [*stdio("pad=200000"), "--tags", "AC-8", "--max-message-bytes", "100000"],
        1,
        "the server wrote a message larger than the limit of 100000 bytes (--max-message-bytes)",
        outcome="failed",
    ),
    "over-the-cap-http-json": Case(
        [*http("pad=200000"), "--tags", "AC-8", "--max-message-bytes", "100000"],
        1,
        "the server sent a message larger than the limit of 100000 bytes",
        outcome="failed",
    ),
    "over-the-cap-http-sse": Case(
        [*http("sse", "pad=200000"), "--tags", "AC-8", "--max-message-bytes", "100000"],
        1,
        "the server sent a message larger than the limit of 100000 bytes",
        outcome="failed",
    ),
    "over-the-cap-http-sse-multibyte": Case(  # 40,000 characters, 120,000 bytes: the cap counts bytes
        [*http("sse", "pad=40000", "padchar=用"), "--tags", "AC-8", "--max-message-bytes", "100000"],
        1,
        "the server sent a message larger than the limit of 100000 bytes",
        outcome="failed",
    ),
    "valid-10-mb-json-body": Case([*http("pad=10485760"), "--tags", "SEL-6"], 0, "PASSED", outcome="passed"),
    "valid-10-mb-sse-line": Case([*http("sse", "pad=10485760"), "--tags", "SEL-6"], 0, "PASSED", outcome="passed"),
    "three-seconds-per-reply": Case(
        [*stdio("slow=3"), "--timeout", "1"], 1, "the implementation stopped answering", outcome="failed"
    ),
    "max-time": Case(
        [*stdio("slow=0.2"), "--max-time", "3"], 1, "not run: the run reached --max-time 3 s", outcome="failed"
    ),
    "notification-storm": Case(  # about memory, not speed: 10,000 notifications before every reply of
        # AC-8's scenarios (about a third of the calls AC-8 + ARGS made: 180-200 s with 8 busy processes)
        [*stdio("storm=10000"), "--tags", "AC-8", "--timeout", "30"],
        0,
        "PASSED",
        outcome="passed",
        fresh=True,
    ),
    "daemonised-child": Case([*stdio("daemon"), "--tags", "AC-8"], 0, "the server left", outcome="passed"),
    "handshake-not-json": Case(
        stdio("hs-garbage"), 1, "not run: the implementation broke the protocol during the", outcome="failed"
    ),
    "handshake-malformed-result": Case(
        stdio("hs-malformed"), 1, "not run: the implementation broke the protocol during the", outcome="failed"
    ),
    "sse-server-ping-answered": Case([*http("sse", "sse-ping"), "--tags", "AC-8"], 0, "PASSED", outcome="passed"),
    "sse-polling-resumed": Case([*http("sse", "sse-poll=2"), "--tags", "AC-8"], 0, "PASSED", outcome="passed"),
    "http-session-kept": Case([*http("session"), "--tags", "AC-8"], 0, "PASSED", outcome="passed"),
    "http-session-id-changes": Case(
        [*http("session-change"), "--tags", "AC-8"],
        1,
        "tools/call: the server changed Mcp-Session-Id from 'gate-1' to 'gate-2' within one session",
        outcome="failed",
    ),
    **{
        f"{fault}-{wire}": Case([*words(fault), "--tags", "PROTO-1"], 1, text, outcome="failed")
        for fault, text in STRICT_JSON_FAULTS.items()
        for wire, words in (("stdio", stdio), ("http-json", http), ("http-sse", lambda w: http("sse", w)))
    },
    "duplicate-text-block": Case(
        [*stdio("dup-text"), "--tags", "PROTO-1"], 1, 'duplicate member name "ok" in one object', outcome="failed"
    ),
    "deep-handshake-stdio": Case(
        stdio("deep=10000"), 1, "JSON nested deeper than 200 levels, the most the runner reads", outcome="failed"
    ),
    "deep-handshake-http": Case(
        http("deep=10000"), 1, "JSON nested deeper than 200 levels, the most the runner reads", outcome="failed"
    ),
    "paginated-tools-list-stdio": Case([*stdio("pages=3"), "--tags", "AC-1"], 0, "PASSED", outcome="passed"),
    "paginated-tools-list-http": Case([*http("pages=3"), "--tags", "AC-1"], 0, "PASSED", outcome="passed"),
    "tool-listed-twice-across-pages": Case(
        [*stdio("pages=2", "dup-tool"), "--tags", "AC-1"],
        1,
        "tools/list lists ccweb_list_user_inputs 2 times across its 2 pages: a tool is listed exactly once",
        outcome="failed",
    ),
    "utf16-units-verbose": Case(UTF16_VERBOSE, 1, "FAILED", outcome="failed"),
    "utf16-units-verbose-gbk": Case(UTF16_VERBOSE, 1, "FAILED", outcome="failed", env={"PYTHONIOENCODING": "gbk"}),
}


TRICKLE = ["trickle=6", "trickle-every=120"]
"""The third AC-8 scenario's call (maxChars 6) is answered with an SSE stream that sends a byte now and then, never
a line: slower than INTERRUPT_BOUND, so a read that goes on after the signal fails the test."""


def _read_case(sig: signal.Signals, cue: str, words: list[str], *args: str, spawned: bool = False) -> Case:
    """A signal sent once ``cue`` says a read of the run waits on the gate fake (``words``) over HTTP: a server the
    run did not start (``--url``), or one it started (``spawned``: ``--http-cmd``)."""
    return Case(
        [*(http(*words) if spawned else []), *args, "--timeout", READ_TIMEOUT],
        128 + sig,
        f"interrupted by {sig.name};",
        outcome="interrupted",
        signal_after=(sig, cue),
        server=None if spawned else words,
        bound=INTERRUPT_BOUND,
    )


READ_CASES: dict[str, Case] = {
    "sigint-during-a-url-read": _read_case(signal.SIGINT, "silent-", ["hang"]),
    "sigterm-during-a-trickling-url-read": _read_case(signal.SIGTERM, "trickling-", TRICKLE),
    "sigint-during-a-trickling-url-read": _read_case(signal.SIGINT, "trickling-", TRICKLE),
    "sigterm-mid-run-url": _read_case(signal.SIGTERM, "PASSED ", []),
    "sigint-mid-run-url": _read_case(signal.SIGINT, "PASSED ", []),
    "sigterm-during-overlapping-url-reads": _read_case(
        signal.SIGTERM,
        "silent-",
        ["hang"],
        "-k",
        "Four and agents",  # one scenario: the run's thread runs it
    ),
    "sigterm-during-a-read-http-cmd": _read_case(signal.SIGTERM, "silent-", ["hang"], spawned=True),
    "sigint-during-a-trickling-read-http-cmd": _read_case(signal.SIGINT, "trickling-", TRICKLE, spawned=True),
}
"""A signal while an HTTP read waits, beside the gate's ``sigterm-during-a-url-read``
(``tests/runner/test_signal_during_a_read.py``): silent, trickling and answering servers the run did not start,
the run's thread waiting for four connections' calls at once (``--jobs`` has one scenario to run), and servers the
run started."""


@dataclass
class Outcome:
    """How one run ended, and what it left."""

    code: int
    wall_s: float
    stdout: str
    stderr: str
    reports: dict[str, str | None]
    """Report kind -> its text (None when not written)."""
    left_processes: list[str]
    left_files: list[str]
    peak_mb: float
    daemons: int
    """How many daemons the fake started (files daemon-<pid> in its state folder)."""
    after_signal_s: float | None = None
    """Seconds from the signal to the run's end (interrupt cases)."""

    @property
    def report(self) -> dict[str, Any] | None:
        text = self.reports.get("json")
        return None if text is None else json.loads(text)

    def text(self) -> str:
        """The console (stdout, stderr) and every scenario message of the JSON report."""
        messages = [s["message"] or "" for s in self.report["scenarios"]] if self.report else []
        return "\n".join([self.stdout, self.stderr, *messages])

    def first_line(self) -> str:
        """The first line of stderr, else of the console, past the -v progress lines."""
        lines = [*self.stderr.splitlines(), *self.stdout.splitlines()]
        skipped = ("PASSED ", "FAILED ", "ccweb-conformance: testing ")  # -v progress, the line naming what started
        return next((line for line in lines if line.strip() and not line.startswith(skipped)), "")


def _marked(mark: str) -> list[str]:
    """Live processes whose environment carries ``mark`` (zombies are gone already)."""
    token = f"{MARK_ENV}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            found.append(f"{entry.name} {command[:120]}")
    return found


EXIT_GRACE_S = 5.0
"""How long processes the runner killed at its very end may take to leave /proc (a loaded machine)."""


def _marked_after_exit(mark: str) -> list[str]:
    """The marked processes still alive once those killed at the end had up to EXIT_GRACE_S to go."""
    deadline = time.monotonic() + EXIT_GRACE_S
    left = _marked(mark)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _marked(mark)
    return left


FILE_CUES = ("hung-", "cancelled-", "silent-", "trickling-")
"""Cues the gate fake writes as files: it read initialize and never answers it (the runner is starting up); it read
a cancellation and answers no call without arguments (the runner listens in PROTO-5's window until its timeout); it
read a call it will never answer (``hang``); it started trickling a stream (``trickle=N``): a read is in flight."""


def _send_when_ready(process: subprocess.Popen[str], case: Case, state: Path, errors: list[str]) -> float:
    """Wait for the cue (a console line, or a file the fake writes), then send the signal; when it was sent."""
    assert case.signal_after is not None and process.stderr is not None
    sig, cue = case.signal_after
    if cue in FILE_CUES:
        deadline = time.monotonic() + 60
        while not any(state.glob(f"{cue}*")) and time.monotonic() < deadline:
            time.sleep(0.05)
    else:
        for line in process.stderr:
            errors.append(line)
            if line.startswith(cue):
                break
    process.send_signal(sig)
    return time.monotonic()


def _listening(port: int, server: subprocess.Popen[bytes]) -> None:
    """Wait (at most LISTEN_BOUND) until the gate fake accepts connections on ``port``."""
    deadline = time.monotonic() + LISTEN_BOUND
    while time.monotonic() < deadline and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the gate fake did not listen on port {port} (exit code {server.poll()})")


@contextmanager
def running_server(words: list[str] | None, env: dict[str, str], sessions: Path) -> Iterator[list[str]]:
    """The gate fake over HTTP started with ``words`` (a server the run does not start), stopped when the block
    ends; yields the runner's words that name it (none when ``words`` is None)."""
    if words is None:
        yield []
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server_env = {name: value for name, value in env.items() if name != MARK_ENV}  # not the run's: not judged left
    server_env["CC_WEB_SESSIONS_DIR"] = str(sessions)
    command = [PYTHON, str(FAKES / "gate_server.py"), "http", str(port), *words]
    server = subprocess.Popen(command, env=server_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _listening(port, server)
        yield ["--url", f"http://127.0.0.1:{port}/mcp", "--sessions-dir", str(sessions), "--protocol", "legacy"]
    finally:
        server.kill()
        server.wait(timeout=LISTEN_BOUND)


class _Prepared(NamedTuple):
    """One case's folders, environment, report paths and the runner's arguments, ready to run."""

    state: Path
    temp: Path
    sessions: Path
    """The sessions folder of a server the run did not start (``Case.server``): empty once the run ended."""
    peak: Path
    mark: str
    env: dict[str, str]
    paths: dict[str, Path]
    argv: list[str]
    """The arguments of ``ccweb-conformance`` (``run`` first)."""


def _prepare(name: str, case: Case, root: Path) -> _Prepared:
    home = root / name
    state, temp, reports, sessions = home / "state", home / "tmp", home / "reports", home / "sessions"
    for folder in (state, temp, reports, sessions):
        folder.mkdir(parents=True)
    mark = uuid.uuid4().hex
    peak = home / "peak"
    env = {
        **os.environ,
        "TMPDIR": str(temp),
        "GATE_STATE": str(state),
        "NO_COLOR": "1",
        MARK_ENV: mark,
        "GATE_PEAK": str(peak),
        **case.env,
    }
    env.pop("CCWEB_SESSION_ID", None)
    paths = {kind: reports / f"report.{kind}" for kind in REPORTS}
    argv = ["run", *case.args, *(word for kind, path in paths.items() for word in (f"--{kind}", str(path)))]
    if case.signal_after is not None and "-v" not in argv:
        argv.append("-v")
    return _Prepared(state, temp, sessions, peak, mark, env, paths, argv)


def _outcome(
    ready: _Prepared,
    *,
    code: int,
    wall: float,
    stdout: str,
    stderr: str,
    left: list[str],
    left_files: list[str],
    after_signal: float | None = None,
) -> Outcome:
    texts = {kind: path.read_text(encoding="utf-8") if path.exists() else None for kind, path in ready.paths.items()}
    return Outcome(
        code,
        wall,
        stdout,
        stderr,
        texts,
        left,
        left_files,
        int(ready.peak.read_text()) / 1024 if ready.peak.exists() else 0.0,
        len(list(ready.state.glob("daemon-*"))),
        after_signal,
    )


def _left_files(temp: Path) -> list[str]:
    return sorted(str(p.relative_to(temp)) for p in temp.rglob("*"))


def run_case(name: str, case: Case, root: Path) -> Outcome:
    """Run one case in a fresh interpreter, return how it ended and what was left once it had."""
    ready = _prepare(name, case, root)
    with running_server(case.server, ready.env, ready.sessions) as target:
        command = [*case.prefix, PYTHON, str(FAKES / "peak_runner.py"), *ready.argv, *target]
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ready.env,
            errors="backslashreplace",
            cwd=REPO,
        )
        early: list[str] = []
        signalled: float | None = None
        try:
            if case.signal_after is not None:
                signalled = _send_when_ready(process, case, ready.state, early)
            stdout, stderr = process.communicate(timeout=case.bound)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        ended = time.monotonic()
        left = _marked_after_exit(ready.mark)
    in_sessions = [str(p.relative_to(ready.sessions.parent)) for p in ready.sessions.rglob("*")]  # not the run's own
    return _outcome(
        ready,
        code=process.returncode,
        wall=ended - started,
        stdout=stdout,
        stderr="".join(early) + stderr,
        left=left,
        left_files=sorted([*_left_files(ready.temp), *in_sessions]),
        after_signal=None if signalled is None else ended - signalled,
    )


def forkable(case: Case) -> bool:
    """Whether a case's run may be forked from a process that imported the kit (:func:`run_forked`): not a signal
    sent mid-run (the interrupt cases time their signal against a fresh runner's start), not a runner started
    under another command (``nohup``) or environment that the interpreter reads at its start (the console's
    encoding), not a case marked ``fresh`` (the runner's peak memory: a forked child's counts its parent's pages)."""
    return case.signal_after is None and not case.prefix and not case.env and not case.fresh and case.server is None


BATCH = (
    "import os, sys; sys.path.insert(0, os.path.abspath('tests'))\n"
    "from runner.gate_cases import batch; batch(sys.argv[1:])\n"
)
FORKED_AT_A_TIME = 2


def run_forked(cases: dict[str, Case], root: Path) -> dict[str, Outcome]:
    """Every case's run forked from one process that imported the kit once, :data:`FORKED_AT_A_TIME` at a time
    (``runner/forked.py``): the same arguments, environment and working directory as :func:`run_case`'s fresh
    runner, its output in files; what each run left is looked for as it ends, as :func:`run_case` does."""
    from runner.forked import run_as_group  # noqa: PLC0415

    ready = {name: _prepare(name, case, root) for name, case in cases.items()}
    out_dir = root / "forked"
    out_dir.mkdir()
    runs = {name: {"argv": r.argv, "env": r.env, "mark": r.mark, "temp": str(r.temp)} for name, r in ready.items()}
    (out_dir / "runs.json").write_text(json.dumps(runs), encoding="utf-8")
    bound = RUN_BOUND * (len(cases) // FORKED_AT_A_TIME + 2)  # each run is bounded by the batch; this, the batch's
    done = run_as_group([PYTHON, "-c", BATCH, str(out_dir)], REPO, bound)
    if done.returncode != 0:
        raise RuntimeError(f"the gate's forked runs failed ({done.returncode}): {done.stderr[-3000:]}")
    ended = json.loads((out_dir / "ended.json").read_text(encoding="utf-8"))
    outcomes = {}
    for name, r in ready.items():
        out, err = ((out_dir / f"{name}.{kind}").read_text(encoding="utf-8", errors="backslashreplace")
                    for kind in ("out", "err"))  # fmt: skip
        e = ended[name]
        outcomes[name] = _outcome(
            r, code=e["code"], wall=e["seconds"], stdout=out, stderr=err, left=e["left"], left_files=e["left_files"]
        )
    return outcomes


def batch(argv: list[str]) -> None:
    """The process :func:`run_forked` starts (``OUT_DIR``): imports the kit once, then runs each case of
    ``OUT_DIR/runs.json`` in a forked child (its environment, the temporary directory read again); as each ends, what it
    left; all to ``OUT_DIR/ended.json``."""
    import tempfile  # noqa: PLC0415

    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415

    out_dir = Path(argv[0])
    runs = json.loads((out_dir / "runs.json").read_text(encoding="utf-8"))
    import_the_kit()
    ended: dict[str, dict[str, Any]] = {}

    def one(name: str) -> int:
        from ccweb_conformance.cli import main  # noqa: PLC0415

        os.environ.clear()
        os.environ.update(runs[name]["env"])
        tempfile.tempdir = None  # read TMPDIR again: the case's own
        os.chdir(REPO)
        return main(runs[name]["argv"])

    def gone(name: str, code: int, seconds: float) -> None:
        run = runs[name]
        left = _marked_after_exit(run["mark"])
        ended[name] = {"code": code, "seconds": seconds, "left": left, "left_files": _left_files(Path(run["temp"]))}

    # A hung run is killed at RUN_BOUND (exit -9), as run_case's time-out stops a fresh one; not by an alarm in the
    # child: the runner's own console bound uses that timer.
    each_in_a_child(list(runs), one, out_dir, FORKED_AT_A_TIME, ended=gone, bound=RUN_BOUND)
    (out_dir / "ended.json").write_text(json.dumps(ended), encoding="utf-8")
