"""The bundled reference's fork server: its start-up paid once per run, not once per binding.

A run against the bundled reference needs one stdio server per source binding and era
(the source is read from the environment at process start). Each would spend about a
second of CPU importing the MCP SDK. :class:`Zygote` starts ``python -m
ccweb_reference.zygote`` once, which imports the server and then forks one child per
:meth:`Zygote.spawn`: a separate process, its own session leader, with its own stdin,
stdout, stderr, environment and arguments, running the same ``main`` as
``ccweb-reference``. :class:`ForkedProcess` is its handle, shaped like ``subprocess.Popen``
(``pid``, ``stdin``, ``stdout``, ``stderr``, ``poll``, ``wait``), so
:class:`~ccweb_conformance.transport.process.ServerProcess` owns, stops and reaps it like
any other server. The zygote keeps an exited child a zombie until its handle was waited
for, so a process ID is never reused while the runner may still signal it.

Linux only (``SOCK_SEQPACKET`` and descriptor passing); elsewhere, or when the zygote cannot
start, every server is started the ordinary way. One zygote serves a run: its :class:`ForkServer`, held by
the run context, starts it on first use (:meth:`ForkServer.get`) and ends it and its children
(:meth:`ForkServer.stop`: the command session does, and ``atexit`` as a last resort).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO, Any

import psutil

from ccweb_conformance.errors import no_process_left
from ccweb_conformance.transport.census import Census
from ccweb_conformance.transport.process import server_environment
from ccweb_conformance.transport.reaper import Reaping

__all__ = ["ForkServer", "ForkedProcess", "Zygote", "supported"]

READY_DEADLINE = 20.0
"""Seconds the zygote gets to import the server and say it is ready."""
REPLY_DEADLINE = 10.0
"""Seconds one spawn request may take."""
STOP_GRACE = 2.0
MAX_PACKET = 1 << 20
DISABLE_ENV = "CCWEB_CONFORMANCE_NO_ZYGOTE"
"""Set (to anything but empty) to start every bundled reference server the ordinary way."""


def supported() -> bool:
    """Whether this system can run the fork server (Linux, and not disabled)."""
    return sys.platform.startswith("linux") and hasattr(socket, "send_fds") and not os.environ.get(DISABLE_ENV)


class ZygoteGone(OSError):
    """The fork server is not running any more."""


class ForkedProcess:
    """A server forked by the zygote, used like ``subprocess.Popen``."""

    def __init__(self, zygote: Zygote, pid: int, argv: list[str], pipes: tuple[int, int, int]) -> None:
        self.args = argv
        self.pid = pid
        self.stdin: IO[bytes] | None = os.fdopen(pipes[0], "wb")
        self.stdout: IO[bytes] | None = os.fdopen(pipes[1], "rb")
        self.stderr: IO[bytes] | None = os.fdopen(pipes[2], "rb")
        self.returncode: int | None = None
        self._zygote = zygote
        self._exited = threading.Event()
        self._code: int | None = None
        self._released = False

    def _note_exit(self, code: int | None) -> None:
        """Its exit code as the zygote reported it (None: the zygote is gone); a known code is kept."""
        if self._code is None:
            self._code = code
        self._exited.set()

    def poll(self) -> int | None:
        """The exit code, or None while it runs."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self.wait(0)
        return None

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit (``subprocess.TimeoutExpired`` after ``timeout``); then the pid may be reused."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            if self._exited.wait(0.05 if left is None else min(left, 0.05)):
                # no code: the zygote went away first, and the child is ours (subreaper) or init's
                code = self._code if self._code is not None else _reap_orphan(self.pid)
                if code is not None:
                    self._code = code
                    self.returncode = code
                    self._release()
                    break
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        """Signal the process, while it has not been waited for."""
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)

    def kill(self) -> None:
        """SIGKILL, while it has not been waited for."""
        self.send_signal(9)

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._zygote.release(self.pid)


def _reap_orphan(pid: int) -> int | None:
    """The exit code of ``pid`` once it ended (-9 when it is gone and unknown), None while it runs."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not ours: gone, or still running (psutil tells, a signal 0 refused as running)
        return None if psutil.pid_exists(pid) else -9
    return os.waitstatus_to_exitcode(status) if done else None


class Zygote:
    """One running fork server and the handles of its children."""

    def __init__(self, *, marks: Mapping[str, str] | None = None, ready: bool = True) -> None:
        """Start the fork server (with ``marks``: the run's, :meth:`Reaping.marks`) and, unless not ``ready``, wait
        until it is ready (else :meth:`wait_ready` does)."""
        self._control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._children: dict[int, ForkedProcess] = {}
        self._unclaimed: dict[int, int] = {}
        """Exits reported before their child's handle was registered (a child that ends at once, e.g. on a
        usage error: the zygote's ``exited`` may follow its ``spawned`` before the spawning thread runs again)."""
        self._children_lock = threading.Lock()
        self._replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self._request_lock = threading.Lock()
        self._gone = threading.Event()
        self.stderr = bytearray()
        """The zygote's own output (its import errors), the newest 64 KiB."""
        environment = {**server_environment(os.environ, {}), **(marks or {})}
        environment.pop("PYTHONSTARTUP", None)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ccweb_reference.zygote", "--control-fd", str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                pass_fds=[theirs.fileno()],
                env=environment,
                start_new_session=True,
            )
        finally:
            theirs.close()
        self.pid = self.process.pid
        threading.Thread(target=self._drain, daemon=True, name="ccweb-zygote-output").start()
        if ready:
            self.wait_ready()

    def wait_ready(self) -> None:
        """Wait until the fork server has imported the server (ZygoteGone, and it stopped, when it does not)."""
        self._control.settimeout(READY_DEADLINE)
        try:
            first = json.loads(self._control.recv(MAX_PACKET) or b"{}")
        except (OSError, ValueError) as exc:
            self.stop()
            raise ZygoteGone(f"the fork server did not start: {exc}") from exc
        if "ready" not in first:
            self.stop()
            raise ZygoteGone("the fork server did not start: " + self.output_tail())
        self._control.settimeout(None)
        threading.Thread(target=self._listen, daemon=True, name="ccweb-zygote-listen").start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(fd, 65536):
                self.stderr += chunk
                del self.stderr[: max(len(self.stderr) - 65536, 0)]

    def output_tail(self) -> str:
        """The last line the zygote wrote, or a note that it wrote nothing."""
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def _listen(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while data := self._control.recv(MAX_PACKET):
                message = json.loads(data)
                if "exited" in message:
                    self._exited(int(message["exited"]), int(message["code"]))
                else:
                    self._replies.put(message)
        self._gone.set()
        self._replies.put({"error": "the fork server ended"})
        with self._children_lock:
            orphans = list(self._children.values())
        for child in orphans:
            child._note_exit(None)

    def _exited(self, pid: int, code: int) -> None:
        """Hand an exit report to its child's handle, or keep it until :meth:`spawn` registers that handle."""
        with self._children_lock:
            child = self._children.get(pid)
            if child is None:
                self._unclaimed[pid] = code
                return
        child._note_exit(code)

    def _register(self, child: ForkedProcess) -> None:
        """Register a new child's handle, with the exit the zygote reported before it was registered, if any."""
        with self._children_lock:
            self._children[child.pid] = child
            code = self._unclaimed.pop(child.pid, None)
        if code is not None:
            child._note_exit(code)

    def abort_start(self) -> None:
        """Give up waiting for the fork server to be ready (the command is ending)."""
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)

    @property
    def alive(self) -> bool:
        """True while the fork server answers."""
        return not self._gone.is_set()

    def spawn(self, argv: list[str], env: Mapping[str, str]) -> ForkedProcess:
        """A new server process running ``ccweb-reference`` with ``argv[1:]`` and ``env``."""
        pipes = [os.pipe() for _ in range(3)]  # (read, write) each; non-inheritable
        child_ends = [pipes[0][0], pipes[1][1], pipes[2][1]]
        ours = (pipes[0][1], pipes[1][0], pipes[2][0])
        try:
            with self._request_lock:
                if self._gone.is_set():
                    raise ZygoteGone("the fork server is not running")
                request = {"op": "spawn", "argv": argv, "env": dict(env), "cwd": os.getcwd()}
                socket.send_fds(self._control, [json.dumps(request).encode("utf-8")], child_ends)
                try:
                    reply = self._replies.get(timeout=REPLY_DEADLINE)
                except queue.Empty:
                    raise ZygoteGone("the fork server did not answer") from None
                if "spawned" not in reply and isinstance(reply.get("errno"), int):  # its fork failed (EAGAIN)
                    raise no_process_left(OSError(reply["errno"], str(reply.get("error", "cannot fork"))))
                if "spawned" not in reply:
                    raise ZygoteGone(str(reply.get("error", reply)))
                child = ForkedProcess(self, int(reply["spawned"]), argv, ours)
                self._register(child)
        except BaseException:
            for fd in ours:
                with contextlib.suppress(OSError):
                    os.close(fd)
            raise
        finally:
            for fd in child_ends:
                os.close(fd)
        if self._gone.is_set():  # it went away while we registered the child
            child._note_exit(None)
        return child

    def release(self, pid: int) -> None:
        """The runner is done with this child: the zygote reaps it."""
        with self._children_lock:
            self._children.pop(pid, None)
        with contextlib.suppress(OSError), self._request_lock:
            self._control.send(json.dumps({"op": "release", "pid": pid}).encode("utf-8"))

    def stop(self) -> None:
        """End the fork server: it kills and reaps its children, then exits (killed if it does not)."""
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)
        try:
            self.process.wait(STOP_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, 9)
            self.process.wait()
        self._control.close()
        if self.process.stdout is not None:
            with contextlib.suppress(OSError):
                self.process.stdout.close()


class ForkServer:
    """One run's fork server: started on first use, or in the background ahead of it; stopped with the run.

    ``census`` counts its process, ``reaping`` marks it (and so its children) as the run's.
    """

    def __init__(self, census: Census, reaping: Reaping) -> None:
        self._census = census
        self._reaping = reaping
        self._running: Zygote | None = None
        self._starting: Zygote | None = None
        """The fork server still importing: :meth:`stop` cuts its start short."""
        self._failed: str | None = None
        """Why it could not start: the run starts every server the ordinary way."""
        self._lock = threading.Lock()

    def get(self) -> Zygote | None:
        """The run's fork server, started now if it is not running; None where unsupported or it failed to start."""
        if not supported():
            return None
        with self._lock:
            if self._running is not None and self._running.alive:
                return self._running
            if self._failed is not None:
                return None
            stale, self._running = self._running, None
            if stale is not None:
                stale.stop()
            try:
                self._running = self._start()
            except (OSError, subprocess.SubprocessError) as exc:
                self._failed = str(exc)
            return self._running

    def _start(self) -> Zygote:
        zygote = Zygote(marks=self._reaping.marks(), ready=False)
        self._census.note("fork server", "exec")
        atexit.register(self.stop)  # a last resort: the session stops it
        self._starting = zygote
        try:
            zygote.wait_ready()
        finally:
            self._starting = None
        return zygote

    def start_in_background(self) -> None:
        """Start the fork server on a thread of its own (its first user waits for it)."""
        if supported():
            threading.Thread(target=self.get, daemon=True, name="ccweb-zygote-start").start()

    def stop(self) -> None:
        """Stop the fork server, if one runs or starts (its children end with it); a later :meth:`get` may start
        another."""
        starting = self._starting
        if starting is not None:
            starting.abort_start()
        with self._lock:
            running, self._running, self._failed = self._running, None, None
        atexit.unregister(self.stop)
        if running is not None:
            running.stop()
