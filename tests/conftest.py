"""Fixtures shared by the reference's own tests: starting reference server processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

StartServer = Callable[..., tuple[subprocess.Popen[bytes], str | None]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_listening(process: subprocess.Popen[bytes], port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr = process.stderr.read().decode() if process.stderr else ""
            raise RuntimeError(f"reference server exited with {process.returncode}: {stderr}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"reference server did not listen on port {port} within {timeout}s")


@pytest.fixture(scope="module")
def start_server() -> Iterator[StartServer]:
    """``start(sessions_dir, *args, http=False, source=None)`` -> (process, base URL or None).

    Over stdio ``source`` becomes CCWEB_SESSION_ID (absent when None); over HTTP the
    server listens on a free loopback port. Every process is stopped when the module ends.
    """
    processes: list[subprocess.Popen[bytes]] = []

    def start(
        sessions_dir: Path, *args: str, http: bool = False, source: str | None = None
    ) -> tuple[subprocess.Popen[bytes], str | None]:
        env = {k: v for k, v in os.environ.items() if k not in {"CCWEB_SESSION_ID", "CC_WEB_SESSIONS_DIR"}}
        if source is not None:
            env["CCWEB_SESSION_ID"] = source
        command = [sys.executable, "-m", "ccweb_reference.cli", "--sessions-dir", str(sessions_dir), *args]
        port = _free_port() if http else None
        if port is not None:
            command += ["--http", "--port", str(port)]
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        processes.append(process)
        if port is None:
            return process, None
        _wait_listening(process, port)
        return process, f"http://127.0.0.1:{port}/mcp"

    yield start
    for process in processes:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                stream.close()
