"""Implementations under test: spawned over stdio, spawned over HTTP, a running URL, in-process."""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Literal, Self, TypedDict, Unpack

import ccweb_spec
from ccweb_conformance.errors import HandshakeViolation, ProtocolFailure, TargetError
from ccweb_conformance.transport.channel import DEFAULT_LIMIT
from ccweb_conformance.transport.client import McpClient, ProtocolMode
from ccweb_conformance.transport.lazy import deferred_import
from ccweb_conformance.transport.linechannel import LineChannel
from ccweb_conformance.transport.lines import ProcessLineIO
from ccweb_conformance.transport.negotiate import OneEraReason, one_era_reason, other_era
from ccweb_conformance.transport.pool import ClientPool
from ccweb_conformance.transport.process import Launcher, ServerProcess, one_line, server_environment
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.transport.signals import shielded

SESSIONS_ENV = ccweb_spec.binding().sessions_dir_env
SOURCE_ENV = ccweb_spec.binding().source_env
SOURCE_HEADER = ccweb_spec.binding().source_header
START_DEADLINE = 20.0
"""Seconds an HTTP server command gets to start answering."""
VIOLATION_KINDS = frozenset({"garbage", "wrong-id", "duplicate", "too-large", "session"})
"""Wire failures that mean a server answered but broke JSON-RPC (not that it could not start)."""


REFERENCE_MODULE = "ccweb_reference.cli"


def reference_command() -> str:
    """The stdio command for the bundled reference server."""
    return f"{shlex.quote(sys.executable)} -m {REFERENCE_MODULE} --sessions-dir {{sessions_dir}}"


def is_reference(argv: list[str]) -> bool:
    """Whether ``argv`` runs the bundled reference with this interpreter (so it can be forked, not started)."""
    return argv[1:3] == ["-m", REFERENCE_MODULE] and os.path.realpath(argv[0]) == os.path.realpath(sys.executable)


def split_command(command: str, substitutions: Mapping[str, str]) -> list[str]:
    """``command`` split like a shell would, placeholders replaced in every word."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise TargetError(f"cannot parse command {command!r}: {exc}") from None
    if not argv:
        raise TargetError("the command is empty")
    for placeholder, value in substitutions.items():
        argv = [word.replace(placeholder, value) for word in argv]
    if shutil.which(argv[0]) is None:
        raise TargetError(f"command not found or not executable: {argv[0]!r}")
    return argv


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _check_handshake(client: McpClient) -> None:
    """The answer the era was settled on must be valid MCP and strict JSON (PROTO-1, D-16)."""
    last = next((exchange for exchange in reversed(client.handshake) if exchange.response is not None), None)
    if last is not None and last.violations:
        method = (last.request or {}).get("method", "the handshake")
        raise HandshakeViolation(f"{method} was answered with: " + "; ".join(last.violations[:5]), client.handshake)


class TargetSettings(TypedDict, total=False):
    """What every kind of target may be given beside its command or URL (the defaults of :class:`Target`)."""

    protocol: ProtocolMode
    timeout: float
    limit: int
    context: RunContext | None


class Target(ABC):
    """An implementation under test; hands out one cached client per source binding."""

    transport: Literal["stdio", "http", "in-process"]
    description: str
    sessions_dir: Path

    def __init__(
        self,
        sessions_dir: Path,
        *,
        protocol: ProtocolMode = "auto",
        timeout: float = 10.0,
        limit: int = DEFAULT_LIMIT,
        context: RunContext | None = None,
    ) -> None:
        self.context = RunContext() if context is None else context
        """The run's state: its census, fork server, reaping and notes (one of the target's own outside a run)."""
        self._own_context = context is None
        """The target made its context: its fork server is stopped with the target."""
        self.sessions_dir = Path(sessions_dir)
        self.protocol: ProtocolMode = protocol
        self.timeout = timeout
        self.limit = limit
        """Bytes one incoming message may have."""
        self.check_messages = True
        """Clients check every message against the MCP schema; off only to time the bare wire (bench)."""
        self._pool = ClientPool(self._connect, self.context.exhausted)
        self.other_era: ProtocolMode | None = None
        """The era also tested (``detect_other_era``): tool calls are repeated in it, answers compared."""
        self._other_pool = ClientPool(lambda source: self._connect(source, self.other_era), self.context.exhausted)
        self.one_era_reason: OneEraReason | None = None
        """Why only one era is tested, once ``detect_other_era`` found so (None: both are, or not asked yet)."""
        self._processes: list[ServerProcess] = []
        """Every process this target spawned (stopped together on close)."""
        self.client_name: str | None = None
        """The name its clients introduce themselves by (None: the kit's own)."""

    def prepare(self, sources: Iterable[str | None], lane: int = 0) -> None:
        """Start connecting clients for bindings that will be needed (in ``lane``), in the background.

        Only worth it where a binding costs a new process (stdio); elsewhere it does nothing.
        A failed or unused preparation changes nothing: ``client`` connects as usual.
        """
        del sources, lane  # a binding is only a header or an argument here: nothing to start

    def detect_other_era(self) -> str | None:
        """Whether the server also speaks the era auto negotiation did not pick (D-16); None when it does.

        Else why not (a one-line reason). Only ``--protocol auto`` tests a second era.
        """
        wanted = other_era(self.protocol, self.client(None).era)
        if wanted is None:
            self.one_era_reason = one_era_reason(self.protocol)
            return "only one era was asked for" if self.one_era_reason == "requested" else "the server speaks one era"
        self.other_era = wanted
        try:
            self._other_pool.client(None)
        except (TargetError, HandshakeViolation) as error:
            self.other_era = None
            self.one_era_reason = one_era_reason(self.protocol)
            return one_line(str(error))
        return None

    def other_client(self, source: str | None, lane: int = 0) -> McpClient:
        """The connected client for this binding (in ``lane``) in the other era (``other_era`` must be set)."""
        return self._other_pool.client(source, lane)

    def client(self, source: str | None, lane: int = 0) -> McpClient:
        """The connected client for this source binding (None = no binding) in ``lane``, made on first use."""
        return self._pool.client(source, lane)

    def server_pid(self, source: str | None = None) -> int | None:
        """The process ID of the server that serves this binding, where this target spawned one (a stdio server
        started now if it is not yet running)."""
        process = self.server_process(source)
        return process.popen.pid if process is not None else None

    def server_process(self, source: str | None = None, lane: int = 0) -> ServerProcess | None:
        """The process behind the client of this binding, where it is one of its own (stdio); else None."""
        del source, lane
        return None

    def without_permission_override(self) -> Target | None:
        """The same implementation, whose servers cannot read a file their mode forbids even as root, or None.

        A runner that is root cannot make a file its server cannot read: root ignores file modes. A
        spawned stdio server can be started without that power (Linux capabilities), so a check of a
        permission error still runs as root. None where it cannot: not root, not Linux, not spawned
        over stdio (one HTTP server serves every binding; a running server is not the runner's).
        """
        return None

    def _connect(self, source: str | None, protocol: ProtocolMode | None = None) -> McpClient:
        client = self._new_client(source, protocol or self.protocol)
        client.check_messages = self.check_messages
        try:
            client.connect()
            _check_handshake(client)
        except HandshakeViolation as violation:
            client.close()
            raise HandshakeViolation(
                f"{self.description}: broke the protocol while negotiating MCP: {violation}", violation.exchanges
            ) from violation
        except ProtocolFailure as failure:
            reason = self._startup_failure(client) or one_line(str(failure))
            exchanges = [*client.handshake, *([failure.exchange] if failure.exchange else [])]
            client.close()
            status = failure.exchange.http_status if failure.exchange is not None else None
            answered = status is not None and 200 <= status < 300  # an MCP endpoint answered, and broke the protocol
            refused = not answered and (failure.kind == "http" or (status or 0) >= 300)  # exit 2
            violated = failure.kind in VIOLATION_KINDS or bool(failure.exchange and failure.exchange.violations)
            if (violated or (answered and failure.kind == "http")) and not refused:
                what = str(failure).removeprefix(f"{self.description}: ")
                raise HandshakeViolation(
                    f"{self.description}: broke the protocol while negotiating MCP: {what}", exchanges
                ) from failure
            raise TargetError(f"{self.description}: could not negotiate MCP: {reason}") from failure
        except BaseException:
            client.close()
            raise
        return client

    def _startup_failure(self, client: McpClient) -> str | None:
        """Why the server went away during the handshake (spawned servers), if it did."""
        return None

    def servers_said(self, lines: int = 20) -> str:
        """The last lines each process this target started wrote to stderr ("" when it started none)."""
        return "\n".join(process.stderr_tail(lines) for process in list(self._processes))

    @abstractmethod
    def _new_client(self, source: str | None, protocol: ProtocolMode) -> McpClient:
        """A client on a fresh connection that asks for ``protocol`` (``--protocol``, or the other era), not yet
        negotiated."""

    def close(self) -> None:
        """Close every client and stop every process this target started (together, not one by one)."""
        self._other_pool.close(abort=self._stop_processes)
        self._pool.close(abort=self._stop_processes)
        self._stop_processes()
        if self._own_context:
            self.context.fork_server.stop()

    def _stop_processes(self) -> None:
        """Stop every process: their groups side by side, then one scan of /proc for whatever still holds one of
        their pipes (not one scan per process), then their pipes closed side by side."""
        with shielded():
            running, self._processes = [p for p in self._processes if not p.stopped], []
            _each(ServerProcess.end, running, self.context.exhausted)
            self.context.reaping.kill_pipe_holders(set().union(*(process.unmarked_pipes for process in running)))
            _each(ServerProcess.close_pipes, running, self.context.exhausted)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class StdioTarget(Target):
    """Spawns the command once per distinct source and speaks over its stdin/stdout."""

    transport = "stdio"

    def __init__(
        self,
        command: str,
        sessions_dir: Path,
        *,
        source_env: str = SOURCE_ENV,
        env: Mapping[str, str] | None = None,
        **settings: Unpack[TargetSettings],
    ) -> None:
        super().__init__(sessions_dir, **settings)
        self.command = command
        self.source_env = source_env
        self.extra_env = dict(env or {})
        self.argv = split_command(command, {"{sessions_dir}": str(self.sessions_dir)})
        self.description = f"stdio server {shlex.join(self.argv)!r}"
        self.fork_reference = is_reference(self.argv)
        """Start the bundled reference as forks of one fork server (``transport.zygote_client``), where supported."""
        self.restricted = False
        """Servers start without root's power to ignore file modes (``without_permission_override``)."""
        self._unprivileged: StdioTarget | None = None
        self._sibling_lock = threading.Lock()
        """One sibling, however many scenarios running together ask for it."""

    def environment(self, source: str | None) -> dict[str, str]:
        """The child's environment for this source binding."""
        env = server_environment(os.environ, {**self.extra_env, SESSIONS_ENV: str(self.sessions_dir)})
        if source is None:
            env.pop(self.source_env, None)
        else:
            env[self.source_env] = source
        return env

    def prepare(self, sources: Iterable[str | None], lane: int = 0) -> None:
        """Start the processes of upcoming source bindings (in ``lane``) while other scenarios run."""
        sources = list(sources)
        self._pool.prepare(sources, lane)
        if self.other_era is not None:
            self._other_pool.prepare(sources, lane)

    def server_process(self, source: str | None = None, lane: int = 0) -> ServerProcess | None:
        """The process behind the client of this binding (started now if it is not yet running)."""
        channel = self.client(source, lane).channel
        if isinstance(channel, LineChannel) and isinstance(channel.io, ProcessLineIO):
            return channel.io.process
        return None

    def without_permission_override(self) -> Target | None:
        """A sibling of this target whose servers are started without CAP_DAC_OVERRIDE (root only, Linux)."""
        if not (sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0):
            return None
        with self._sibling_lock:
            if self._unprivileged is None:
                sibling = StdioTarget(
                    self.command,
                    self.sessions_dir,
                    source_env=self.source_env,
                    protocol=self.protocol,
                    timeout=self.timeout,
                    env=self.extra_env,
                    limit=self.limit,
                    context=self.context,
                )
                sibling.restricted, sibling.fork_reference = True, False
                sibling.check_messages, sibling.other_era = self.check_messages, self.other_era
                sibling.description = self.description
                self._unprivileged = sibling
            return self._unprivileged

    def close(self) -> None:
        """Close this target and the sibling started without the permission override, if one was made."""
        try:
            if self._unprivileged is not None:
                self._unprivileged.close()
        finally:
            super().close()

    def _launcher(self) -> Launcher | None:
        """The bundled reference's fork server, where it runs; None: start the command the ordinary way."""
        zygote = self.context.fork_server.get() if self.fork_reference else None
        if zygote is None:
            return None
        return lambda argv, env: zygote.spawn(["ccweb-reference", *argv[3:]], env)

    def _new_client(self, source: str | None, protocol: ProtocolMode) -> McpClient:
        process = ServerProcess(
            self.argv,
            self.environment(source),
            stdio=True,
            launcher=self._launcher(),
            restricted=self.restricted,
            reaping=self.context.reaping,
        )
        self.context.processes.note("stdio server", process.how)
        self._processes.append(process)
        channel = LineChannel(ProcessLineIO(process, self.limit), label=self.description, limit=self.limit)
        return McpClient(channel, protocol=protocol, timeout=self.timeout, name=self.client_name)

    def _startup_failure(self, client: McpClient) -> str | None:
        channel = client.channel
        assert isinstance(channel, LineChannel)
        status = channel.io.exit_status(0.5)
        if status is None:
            return None
        tail = one_line(channel.stderr_tail(20))
        return f"the process {status} at start-up" + (f"; stderr: {tail}" if tail else "; no stderr output")


def _each(step: Callable[[ServerProcess], None], processes: list[ServerProcess], exhausted: list[str]) -> None:
    """``step`` on every process, side by side when there are several; one by one when no thread is left (noted
    in ``exhausted``)."""
    if len(processes) > 1:
        try:
            with ThreadPoolExecutor(max_workers=min(len(processes), 16), thread_name_prefix="ccweb-stop") as pool:
                list(pool.map(step, processes))
            return
        except RuntimeError as error:  # no thread left (RLIMIT_NPROC): one by one below (each step runs once)
            exhausted.append(str(error))
    for process in processes:
        step(process)


class _HttpTarget(Target):
    """Common to HTTP targets: one httpx client per McpClient, source as a header."""

    transport = "http"
    url: str
    source_header: str
    extra_headers: Mapping[str, str] = {}
    """Headers sent on every request (``--header``), e.g. Authorization."""
    process: ServerProcess | None = None
    """The server this target started (``--command``; one for every binding): its stderr is the channel's."""

    def with_headers(self, headers: Mapping[str, str]) -> _HttpTarget:
        """Send these headers on every request too."""
        self.extra_headers = dict(headers)
        return self

    def _new_client(self, source: str | None, protocol: ProtocolMode) -> McpClient:
        headers = dict(self.extra_headers)
        if source is not None:
            headers[self.source_header] = source
        httpchannel = deferred_import("ccweb_conformance.transport.httpchannel")  # httpx: HTTP targets only
        channel = httpchannel.HttpChannel(
            self.url,
            base_headers=headers,
            stderr_tail=self.process.stderr_tail if self.process is not None else None,
            label=self.description,
            limit=self.limit,
            connections=self.context.connections,
        )
        return McpClient(channel, protocol=protocol, timeout=self.timeout, name=self.client_name)


def _answers(url: str, timeout: float) -> str | None:
    """None when ``url`` gives any HTTP response, else the reason it did not."""
    httpx = deferred_import("httpx")
    try:
        with httpx.Client(trust_env=False) as http, http.stream("GET", url, timeout=timeout):
            return None
    except httpx.HTTPError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class HttpCommandTarget(_HttpTarget):
    """Starts an HTTP server command on a free port and talks to it at ``url``."""

    process: ServerProcess

    def __init__(
        self,
        command: str,
        url: str,
        sessions_dir: Path,
        *,
        source_header: str = SOURCE_HEADER,
        start_deadline: float = START_DEADLINE,
        env: Mapping[str, str] | None = None,
        **settings: Unpack[TargetSettings],
    ) -> None:
        super().__init__(sessions_dir, **settings)
        self.port = free_port()
        substitutions = {"{port}": str(self.port), "{sessions_dir}": str(self.sessions_dir)}
        self.argv = split_command(command, substitutions)
        self.url = url
        for placeholder, value in substitutions.items():
            self.url = self.url.replace(placeholder, value)
        self.source_header = source_header
        self.description = f"HTTP server {shlex.join(self.argv)!r} at {self.url}"
        env = server_environment(os.environ, {**(env or {}), SESSIONS_ENV: str(self.sessions_dir)})
        self.process = ServerProcess(self.argv, env, stdio=False, reaping=self.context.reaping)
        self.context.processes.note("HTTP server", "exec")
        try:
            self._wait_until_up(start_deadline)
        except BaseException:
            self.process.stop()
            raise

    def server_pid(self, source: str | None = None) -> int | None:
        """The server process this target started (one for every binding)."""
        del source
        return self.process.popen.pid

    def _wait_until_up(self, deadline_s: float) -> None:
        deadline = time.monotonic() + deadline_s
        reason: str | None = "not tried"
        while time.monotonic() < deadline:
            code = self.process.popen.poll()
            if code is not None:
                tail = one_line(self.process.stderr_tail(20))
                raise TargetError(
                    f"{self.description}: the process exited with code {code} at start-up"
                    + (f"; output: {tail}" if tail else "; no output")
                )
            reason = _answers(self.url, 1.0)
            if reason is None:
                return
            time.sleep(0.05)
        tail = one_line(self.process.stderr_tail(20))
        suffix = f"; output: {tail}" if tail else ""
        raise TargetError(f"{self.description}: no HTTP answer within {deadline_s:g} s ({reason}){suffix}")

    def close(self) -> None:
        super().close()
        self.process.stop()


class HttpUrlTarget(_HttpTarget):
    """A server that is already running at ``url``."""

    def __init__(
        self,
        url: str,
        sessions_dir: Path,
        *,
        source_header: str = SOURCE_HEADER,
        **settings: Unpack[TargetSettings],
    ) -> None:
        super().__init__(sessions_dir, **settings)
        self.url = url
        self.source_header = source_header
        self.description = f"HTTP server at {url}"
        reason = _answers(url, min(self.timeout, 5.0))
        if reason is not None:
            raise TargetError(f"{self.description} does not answer: {reason}")


class InProcessTarget(Target):
    """The reference server in a background thread (the kit's own fast tests)."""

    transport = "in-process"
    description = "in-process reference server"

    def _new_client(self, source: str | None, protocol: ProtocolMode) -> McpClient:
        inprocess = deferred_import("ccweb_conformance.transport.inprocess")  # imports the MCP SDK
        line_io = inprocess.InProcessLineIO(self.sessions_dir, source)
        channel = LineChannel(line_io, label=self.description, limit=self.limit)
        return McpClient(channel, protocol=protocol, timeout=self.timeout, name=self.client_name)
