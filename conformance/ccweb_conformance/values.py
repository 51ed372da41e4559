"""The values a command's options resolve to, built once: the target, the selection, the fuzz request, the reports.

The option table (:class:`ccweb_conformance.options.RunnerOptions`) stays the one declaration of every option;
:func:`resolve_values` turns validated options into these values, and a function receives the value it needs. The
target renders its own command words, secrets redacted, for every rerun line and record (:meth:`TargetSpec.rerun_line`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path

from ccweb_conformance.i18n import messages
from ccweb_conformance.options import (
    CREDENTIAL_ENV_WORDS,
    CREDENTIAL_HEADER_WORDS,
    CREDENTIAL_HEADERS,
    ENV_VARIABLE,
    HEADER,
    SHORTEST_SECRET,
    USER_INFORMATION,
    Protocol,
    RunnerOptions,
    command_line,
    redact,
    without_user_information,
)

__all__ = ["FuzzRequest", "ReportRequest", "ReportRequests", "RunValues", "Selection", "TargetSpec", "resolve_values"]

PROGRAM = "ccweb-conformance"


@dataclass(frozen=True)
class TargetSpec:
    """Which implementation, and how the runner talks to it: the target and binding options (made by
    :func:`target_of`, which renders its words and finds its secrets once).

    ``protocol`` is the era asked for (``--protocol``); the era negotiated is the client's, never written here.
    """

    stdio: str | None
    http_cmd: str | None
    url: str | None = field(repr=False)
    in_process: bool
    sessions_dir: Path | None
    protocol: Protocol
    source_env: str
    source_header: str
    timeout: float
    max_message_bytes: int
    headers: tuple[tuple[str, str], ...] = field(repr=False)
    """``--header`` as (name, value) pairs."""
    env: tuple[tuple[str, str], ...] = field(repr=False)
    """``--env`` as (name, value) pairs."""
    secrets: tuple[str, ...] = field(kw_only=True, repr=False)
    """Values no report or message may show (docs/runner.md, "Secrets")."""
    words: tuple[str, ...] = field(kw_only=True)
    """The flags that name this target and its binding again, secrets redacted (``--stdio CMD --protocol legacy``)."""
    target_words: tuple[str, ...] = field(kw_only=True)
    """The flags of the target alone (no binding), secrets redacted: how a ``--last-failed`` record names it."""
    withheld: tuple[str, ...] = field(kw_only=True)
    """The flags whose values a rerun line shows as ``***`` (``--header Authorization``, ``--env TOKEN``, ``--url``)."""

    @property
    def is_bundled_reference(self) -> bool:
        """No target given: the bundled reference over stdio."""
        return not (self.stdio or self.http_cmd or self.url or self.in_process)

    @property
    def is_running_server(self) -> bool:
        """A server already running at ``--url`` (none spawned by the runner)."""
        return bool(self.url) and not self.http_cmd

    def rerun_line(self, *more: str) -> str:
        """``ccweb-conformance run`` against this target with ``more`` words, and the values to supply again."""
        line = shlex.join([PROGRAM, "run", *self.words, *more])
        supply = f"  # {messages()('fuzz.replay_supply', names=', '.join(self.withheld))}" if self.withheld else ""
        return line + supply

    def described(self) -> str:
        """The target as the first line of a run names it, secrets redacted ("the stdio server 'node s.js'")."""
        if self.stdio:
            shown = f"the stdio server {self.stdio!r}"
        elif self.http_cmd:
            shown = f"the HTTP server {self.http_cmd!r} at {without_user_information(self.url or '')}"
        elif self.url:
            shown = f"the HTTP server at {without_user_information(self.url)}"
        elif self.in_process:
            shown = "the in-process reference server"
        else:
            shown = "the bundled reference server (stdio)"
        return redact(shown, self.secrets)


@dataclass(frozen=True)
class Selection:
    """Which scenarios run, and how their verdicts count: the selection options."""

    tags: str | None = None
    keyword: str | None = None
    last_failed: bool = False
    expected_failures: Path | None = None
    strict: bool = False
    exitfirst: bool = False
    no_rerun: bool = False
    collect_only: bool = False

    @property
    def narrow(self) -> bool:
        """``--tags`` or ``-k`` chose some scenarios."""
        return bool(self.tags or self.keyword)


@dataclass(frozen=True)
class FuzzRequest:
    """``--fuzz N --seed S --fuzz-time SECONDS`` as given (``fuzz/settings.py`` turns it into the phase's settings)."""

    count: int | None = None
    seed: int = 0
    time_limit: float | None = None


@dataclass(frozen=True)
class ReportRequest:
    """One report asked for: its option (``json``), its flag (``--json``) and its path (``-``: stdout)."""

    option: str
    flag: str
    path: Path


@dataclass(frozen=True)
class ReportRequests:
    """Every report asked for, in table order, and how the Cucumber JSON is flavoured."""

    given: tuple[ReportRequest, ...] = ()
    cucumber_flavour: str = "js"

    def path(self, option: str) -> Path | None:
        """The path asked for with ``option`` (``json``), or None."""
        return next((request.path for request in self.given if request.option == option), None)


@dataclass(frozen=True)
class RunValues:
    """A command's options as values: each part goes to the functions that need it."""

    target: TargetSpec
    selection: Selection
    fuzz: FuzzRequest
    reports: ReportRequests
    lang: str | None
    verbose: bool
    max_time: float
    stop_after: int
    jobs: int


def resolve_values(options: RunnerOptions) -> RunValues:
    """The values of validated options (``options.resolve``), built once."""
    return RunValues(
        target=target_of(options),
        selection=Selection(
            options.tags, options.keyword, options.last_failed, options.expected_failures, options.strict,
            options.exitfirst, options.no_rerun, options.collect_only,
        ),
        fuzz=FuzzRequest(options.fuzz, options.seed, options.fuzz_time),
        reports=ReportRequests(tuple(ReportRequest(*given) for given in options.reports()), options.cucumber_flavour),
        lang=options.lang,
        verbose=options.verbose,
        max_time=options.max_time,
        stop_after=options.stop_after,
        jobs=options.jobs,
    )


def target_of(options: RunnerOptions) -> TargetSpec:
    """The target the options name (no target: the bundled reference), its words rendered once."""
    headers = tuple((m[1], m[2]) for m in map(HEADER.match, options.header) if m is not None)
    env = tuple((m[1], m[2]) for m in map(ENV_VARIABLE.match, options.env) if m is not None)
    withheld = [f"--header {h.split(':', 1)[0]}" for h in options.header]
    withheld += [f"--env {e.split('=', 1)[0]}" for e in options.env]
    withheld += ["--url"] if options.url and without_user_information(options.url) != options.url else []
    return TargetSpec(
        options.stdio, options.http_cmd, options.url, options.in_process, options.sessions_dir, options.protocol,
        options.source_env, options.source_header, options.timeout, options.max_message_bytes, headers, env,
        secrets=_secrets(options, headers, env),
        words=tuple(command_line(options, ("target", "binding"))),
        target_words=tuple(command_line(options, ("target",))),
        withheld=tuple(withheld),
    )


def _secrets(
    options: RunnerOptions, headers: tuple[tuple[str, str], ...], env: tuple[tuple[str, str], ...]
) -> tuple[str, ...]:
    """Credential headers' values (and the credential after its scheme), credential-named ``--env`` values and
    URLs' user information, each at least :data:`SHORTEST_SECRET` long (docs/runner.md, "Secrets")."""
    found: list[str] = []
    for name, value in dict(headers).items():
        if name.lower() in CREDENTIAL_HEADERS or any(word in name.lower() for word in CREDENTIAL_HEADER_WORDS):
            found += [value, value.partition(" ")[2].strip()]
    for name, value in dict(env).items():
        if name in options.secret_env or any(word in name.upper() for word in CREDENTIAL_ENV_WORDS):
            found.append(value)
    found = [value for value in found if len(value) >= SHORTEST_SECRET]
    for value in (options.url or "", *options.header, *options.env):
        for match in USER_INFORMATION.finditer(value):
            password = match[1].partition(":")[2]
            found += [match[1], *([password] if len(password) >= SHORTEST_SECRET else [])]
    return tuple(dict.fromkeys(found))
