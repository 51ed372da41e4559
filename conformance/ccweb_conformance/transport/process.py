"""A spawned server process: its own process group, stderr drained into a ring buffer."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from typing import IO, Protocol

from ccweb_conformance.errors import LIMIT_ERRNOS, TargetError, no_process_left
from ccweb_conformance.transport.reaper import SERVER_ENV, Reaping
from ccweb_conformance.transport.signals import shielded

STDERR_LIMIT = 256_000
"""Bytes of stderr kept (the newest ones)."""
STDERR_SETTLE = 1.0
"""Seconds to wait for the rest of an exited server's stderr."""
STOP_GRACE = 2.0


class RingBuffer:
    """Thread-safe store of the newest ``limit`` bytes written to it."""

    def __init__(self, limit: int = STDERR_LIMIT) -> None:
        self.limit = limit
        self._data = bytearray()
        self._lock = threading.Lock()

    def write(self, chunk: bytes) -> None:
        """Append ``chunk``, dropping the oldest bytes beyond the limit."""
        with self._lock:
            self._data += chunk
            del self._data[: max(len(self._data) - self.limit, 0)]

    def tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines, decoded leniently."""
        with self._lock:
            text = self._data.decode("utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])


RUNNER_PREFIXES = ("CCWEB_CONFORMANCE_", "PYTEST_")
"""Variables a server never gets from the runner's environment: the runner's own namespace (its settings, its
markers: ``CCWEB_CONFORMANCE_RUN``, ``CCWEB_CONFORMANCE_SERVER``) and pytest's (``PYTEST_CURRENT_TEST``,
``PYTEST_VERSION``, ...), set while the runner's suite runs. ``--env`` may still give any of them."""


def server_environment(environ: Mapping[str, str], given: Mapping[str, str]) -> dict[str, str]:
    """A server's environment: the user's own (``environ`` without the runner's and pytest's variables), then
    what the user gave (``--env``, the binding), which wins; nothing a server could tell a test run by."""
    own = {name: value for name, value in environ.items() if not name.startswith(RUNNER_PREFIXES)}
    return {**own, **given}


def pipe_inodes(*streams: IO[bytes] | None) -> set[int]:
    """The inodes of the pipes among ``streams`` (a process holding one of them is the server's)."""
    inodes = set()
    for stream in streams:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            info = os.fstat(stream.fileno())  # type: ignore[union-attr]
            if stat.S_ISFIFO(info.st_mode):
                inodes.add(info.st_ino)
    return inodes


class ProcessHandle(Protocol):
    """What :class:`ServerProcess` needs of a started process: ``subprocess.Popen``'s shape."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


Launcher = Callable[[list[str], Mapping[str, str]], ProcessHandle]
"""Starts a stdio server with pipes for its stdin, stdout and stderr, in a session of its own."""


PR_CAPBSET_DROP = 24
DAC_CAPABILITIES = (1, 2)
"""CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: what lets root read a file whose mode forbids it."""


def drop_file_permission_override() -> None:
    """In a child about to exec (``preexec_fn``): the program runs without root's power to ignore file modes.

    The capabilities leave the bounding set, so the program execs without them: root then reads a file only
    as its mode allows its owner (a mode 000 file not at all). Linux only; raises OSError where refused.
    """
    import ctypes  # noqa: PLC0415 (only in the child)

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in DAC_CAPABILITIES:
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) refused")


class ServerProcess:
    """A child process in a new session; ``stop`` kills its whole process group and what it left."""

    def __init__(
        self,
        argv: list[str],
        env: Mapping[str, str],
        *,
        stdio: bool,
        launcher: Launcher | None = None,
        restricted: bool = False,
        reaping: Reaping | None = None,
    ) -> None:
        self.stderr = RingBuffer()
        self.reaping = reaping if reaping is not None else Reaping()
        """The run's reaping (its marker, the leftovers stopped); one of its own outside a run."""
        self.token = self.reaping.server_token()
        """This server's own mark (SERVER_ENV), inherited by everything it starts."""
        self.readers: list[threading.Thread] = []
        """Threads reading its pipes; a pipe is closed only once its reader has ended."""
        self.stopped = False
        """True once :meth:`stop` or :meth:`end` ran (they run once)."""
        self._stop_lock = threading.Lock()
        self._reading = threading.Lock()
        """Held while a chunk of its output is read and kept: who holds it has read all there was."""
        self.marks = self.reaping.marks(self.token)
        """How what it leaves is found: nothing where the runner is a subreaper (reaper), else the env markers."""
        environment = {**env, **self.marks}
        self.how = "exec"
        """``fork`` when the launcher (the bundled reference's fork server) started it, else ``exec``."""
        self.restricted = restricted
        """Started without root's power to ignore file modes (:func:`drop_file_permission_override`)."""
        self.popen: ProcessHandle = self._start(argv, environment, stdio, None if restricted else launcher)
        self.pid = self.popen.pid
        self.pipes = pipe_inodes(self.popen.stdin, self.popen.stdout, self.popen.stderr)
        drained = self.popen.stderr if stdio else self.popen.stdout
        assert drained is not None
        self._drained = drained
        self._drainer = threading.Thread(target=self._drain, args=(drained.fileno(),), daemon=True)
        try:
            self._drainer.start()
        except BaseException:  # no thread left (RLIMIT_NPROC): the server started is stopped before the error goes up
            self.popen.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(10)
            for stream in (self.popen.stdin, self.popen.stdout, self.popen.stderr):
                if stream is not None:
                    stream.close()
            raise
        self.readers.append(self._drainer)

    def _start(self, argv: list[str], env: Mapping[str, str], stdio: bool, launcher: Launcher | None) -> ProcessHandle:
        if launcher is not None and stdio:
            try:
                handle = launcher(argv, env)
            except OSError as exc:  # the launcher is gone: started the ordinary way; no process left: the limit's
                if exc.errno in LIMIT_ERRNOS:
                    raise no_process_left(exc) from None
            else:
                self.how = "fork"
                return handle
        try:
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if stdio else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if stdio else subprocess.STDOUT,
                env=env,
                start_new_session=True,
                preexec_fn=drop_file_permission_override if self.restricted else None,  # noqa: PLW1509
            )
        except OSError as exc:
            if exc.errno in LIMIT_ERRNOS:  # no descriptor or process left: the runner's machine, not the server
                raise no_process_left(exc) from None
            raise TargetError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc

    def _drain(self, fd: int) -> None:
        """Keep what the server writes, read as it comes: each read and its keeping under ``_reading``."""
        try:
            os.set_blocking(fd, False)
            waiting = select.poll()
            waiting.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        except (OSError, ValueError):  # closed already
            return
        while True:
            try:
                waiting.poll()
            except OSError:
                return
            with self._reading:
                if not self._keep_available(fd):
                    return

    def _keep_available(self, fd: int) -> bool:
        """Read and keep every byte waiting in the pipe (with ``_reading`` held); False at its end."""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self.stderr.write(chunk)

    def stderr_tail(self, lines: int = 20) -> str:
        """The last lines of what the server wrote to stderr.

        Once the process has exited, its stderr is read to the end first (briefly), so a
        crash report carries the server's last words rather than racing the drain thread.
        """
        if self.popen.poll() is not None:
            self._drainer.join(STDERR_SETTLE)
        else:
            self._settle_stderr()
        return self.stderr.tail(lines)

    def _settle_stderr(self) -> None:
        """Keep what the running server already wrote before reading the tail: a traceback written just before its
        answer is then in it, not still in the pipe or in the drain thread's hands (it reads and keeps each chunk
        under a lock, which this takes, at most STDERR_SETTLE)."""
        if self._drained.closed or not self._reading.acquire(timeout=STDERR_SETTLE):
            return
        try:  # a chunk the drain thread read is kept by now; what is still in the pipe is read here
            if not self._drained.closed:
                self._keep_available(self._drained.fileno())
        finally:
            self._reading.release()

    def stop(self) -> None:
        """Terminate the process group, then kill it; reap the child; close the pipes.

        Not interrupted by a signal (one received meanwhile is raised after).
        """
        with shielded(), self._stop_lock:
            if self._end():  # descendants that left the group (setsid) may still hold the pipes: stopped first,
                self.reaping.kill_pipe_holders(self.unmarked_pipes)  # so the readers see the end of their streams
                self.close_pipes()

    def end(self) -> None:
        """The first half of :meth:`stop`, for stopping several at once (``Target``): the group ended, the child
        reaped, a marked server's leavers killed; then one :meth:`Reaping.kill_pipe_holders` for all of them and
        :meth:`close_pipes` for each. Nothing when already stopped."""
        with shielded(), self._stop_lock:
            self._end()

    def _end(self) -> bool:
        """End the group, reap the child, kill a marked server's leavers; False when it was stopped already (once:
        after the wait, its pid and group id may be reused). The caller holds the stop lock.

        SIGTERM to the group, STOP_GRACE for the leader to go, then SIGKILL to the group (whether the leader went or
        not: nothing else of its group survives); the leader reaped.
        """
        if self.stopped:
            return False
        self.stopped = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(STOP_GRACE)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        self.popen.wait()
        if SERVER_ENV in self.marks:
            self.reaping.kill_marked(SERVER_ENV, self.token)
        return True

    @property
    def unmarked_pipes(self) -> set[int]:
        """The pipes by which what it left is found once it stopped (none for a marked server: found by its mark)."""
        return set() if SERVER_ENV in self.marks else set(self.pipes)

    def close_pipes(self) -> None:
        """Close its stdin, let its readers see the end of their streams, close those (the last half of a stop)."""
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        deadline = time.monotonic() + STOP_GRACE
        for reader in self.readers:
            reader.join(max(deadline - time.monotonic(), 0.0))
        if any(reader.is_alive() for reader in self.readers):
            return  # closing a pipe a thread still reads would block, or hand its fd number to another pipe
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def one_line(text: str) -> str:
    """``text`` on one line (stderr tails inside one-line messages)."""
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())
