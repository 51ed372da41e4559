"""The runner's settings, shared by the CLI and the pytest plugin."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Protocol = Literal["auto", "legacy", "2026-07-28"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "legacy", "2026-07-28")
DEFAULT_SOURCE_ENV = "CCWEB_SESSION_ID"
DEFAULT_SOURCE_HEADER = "X-CCWeb-Session-Id"
DEFAULT_TIMEOUT = 10.0
DEFAULT_FUZZ_TIME = 60.0


@dataclass(frozen=True)
class RunnerOptions:
    """What to test and how. Exactly one target kind is set, or none (the bundled reference)."""

    stdio: str | None = None
    http_cmd: str | None = None
    url: str | None = None
    sessions_dir: Path | None = None
    in_process: bool = False
    protocol: Protocol = "auto"
    source_env: str = DEFAULT_SOURCE_ENV
    source_header: str = DEFAULT_SOURCE_HEADER
    timeout: float = DEFAULT_TIMEOUT
    expected_failures: Path | None = None
    tags: str | None = None
    strict: bool = False
    fuzz: int | None = None
    """Differential fuzzing after the scenarios: this many generated conversations."""
    seed: int = 0
    fuzz_time: float = DEFAULT_FUZZ_TIME

    def problems(self) -> list[str]:
        """Usage errors in these options, each one line."""
        found: list[str] = []
        if sum(bool(x) for x in (self.stdio, self.http_cmd and self.url, self.in_process)) > 1 or (
            self.stdio and self.url
        ):
            found.append("choose one target: --stdio, --http-cmd with --url, --url with --sessions-dir, or none")
        if self.http_cmd and not self.url:
            found.append("--http-cmd needs --url (for example --url http://127.0.0.1:{port}/mcp)")
        if self.url and not self.http_cmd and self.sessions_dir is None:
            found.append("--url without --http-cmd needs --sessions-dir: the directory the running server reads")
        if self.sessions_dir is not None and not self.sessions_dir.is_dir():
            found.append(f"--sessions-dir {str(self.sessions_dir)!r} is not a directory")
        if self.url and not self.url.startswith(("http://", "https://")):
            found.append(f"--url {self.url!r} is not an http:// or https:// URL")
        if not 0 < self.timeout <= 600:
            found.append(f"--timeout {self.timeout} is out of range (0, 600] seconds")
        if self.protocol not in PROTOCOLS:
            found.append(f"--protocol {self.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.expected_failures is not None and not self.expected_failures.is_file():
            found.append(f"--expected-failures {str(self.expected_failures)!r} is not a file")
        if self.fuzz is not None and self.fuzz < 1:
            found.append(f"--fuzz {self.fuzz} must be at least 1")
        if not self.fuzz_time > 0:
            found.append(f"--fuzz-time {self.fuzz_time} must be more than 0 seconds")
        return found
