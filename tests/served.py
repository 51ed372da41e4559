"""The reference over HTTP for a test: started on a port of its own choosing, yielded once it accepts
connections, stopped and waited for after. One helper for every test that needs one."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SERVING = re.compile(r"ccweb-reference: serving (http://127\.0\.0\.1:(\d+)/mcp)")
"""The line the reference writes on stderr once it is bound (before it listens)."""
START_BOUND = 30.0
"""Seconds a server may take to start listening."""
STOP_BOUND = 10.0
"""Seconds a stopped server may take to exit before it is killed."""


@dataclass(frozen=True)
class Served:
    """A running reference: its process, URL, port and the file holding its stderr."""

    process: subprocess.Popen[bytes]
    url: str
    port: int
    stderr: Path

    def log(self) -> str:
        """What the server wrote on stderr so far."""
        return self.stderr.read_text(encoding="utf-8", errors="replace")


def accepting(port: int, process: subprocess.Popen[bytes], deadline: float) -> bool:
    """True once ``port`` accepts a connection; False when ``process`` ended or ``deadline`` passed first."""
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1.0).close()
            return True
        except ConnectionRefusedError:
            time.sleep(0.05)
    return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate ``process`` and wait for it (killed when it does not exit in time)."""
    process.terminate()
    try:
        process.wait(timeout=STOP_BOUND)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_BOUND)


@contextmanager
def reference_over_http(
    sessions: Path, *options: str, stderr: Path, command: Sequence[str] = (sys.executable, "-m", "ccweb_reference.cli")
) -> Iterator[Served]:
    """``COMMAND --sessions-dir SESSIONS --http --port 0 OPTIONS`` with its stderr in the file ``stderr``."""
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--sessions-dir", str(sessions), "--http", "--port", "0", *options],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    try:
        deadline = time.monotonic() + START_BOUND
        while (match := SERVING.search(stderr.read_text(errors="replace"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the reference did not start within {START_BOUND} s: {stderr.read_text()!r}")
            time.sleep(0.05)
        if not accepting(int(match.group(2)), process, deadline):
            raise RuntimeError(f"the reference did not accept connections: {stderr.read_text()!r}")
        yield Served(process, match.group(1), int(match.group(2)), stderr)
    finally:
        stop(process)
