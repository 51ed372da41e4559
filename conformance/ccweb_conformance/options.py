"""The runner's options: declared once, read by the command line and by the pytest plugin.

:class:`RunnerOptions` *is* the option table. Each field is declared with :func:`option`,
which records its flags, help group, help text, and how it reaches the pytest plugin
(``plugin``: the pytest flag that carries it, or ``None`` when only the command line uses
it). The command line builds its parser from the table (:func:`add_arguments`), the plugin
builds its ``--ccweb-*`` options from it (:func:`plugin_options`), and both turn parsed values
back into a :class:`RunnerOptions` (:func:`from_values`). :mod:`ccweb_conformance.values` turns valid options
into the values each function receives (the target, the selection, the fuzz request, the reports). Adding an
option is one field here, plus its use. A field typed ``tuple[str, ...]`` is a repeatable option
(``--header A --header B``).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import stat
import sys
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.i18n import LANGUAGES

Protocol = Literal["auto", "legacy", "2026-07-28"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "legacy", "2026-07-28")
Command = Literal["run", "profile", "list", "spec", "export", "check-description"]
STDOUT = "-"
"""A report path that means stdout."""

GROUPS: dict[str, str] = {
    "target": "target (choose one; none means the bundled reference server over stdio)",
    "binding": "binding",
    "selection": "selection",
    "fuzzing": "differential fuzzing (after the scenarios)",
    "profile": "profile",
    "reports": "reports (FILE: a file, a device such as /dev/null, or - for stdout; a folder, a named pipe, a "
    "socket or a missing folder is a usage error)",
    "language": "language",
    "document": "document (neither option: it goes to stdout)",
    "description": "description (TEXT, - for stdin, or --file FILE)",
}
"""Help groups, in the order ``--help`` shows them."""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


@dataclass(frozen=True)
class Bounds:
    """The values a number option accepts: ``low`` to ``high`` (inclusive; ``low`` excluded when open).

    A float option always has a ``high``, so ``inf`` and ``nan`` are refused wherever the value
    comes from (the command line, the config file, the pytest plugin).
    """

    low: float
    high: float | None = None
    low_open: bool = False
    unit: str = ""

    def problem(self, value: float) -> str | None:
        """Why ``value`` is refused ("is out of range (0, 600] seconds"), or None when it is accepted."""
        above = value > self.low if self.low_open else value >= self.low
        if above and (self.high is None or value <= self.high) and math.isfinite(value):
            return None
        if self.high is None:
            return f"must be at least {_number(self.low)}"
        bracket = "(" if self.low_open else "["
        unit = f" {self.unit}" if self.unit else ""
        return f"is out of range {bracket}{_number(self.low)}, {_number(self.high)}]{unit}"


@dataclass(frozen=True)
class OptionSpec:
    """How one option appears on the command line and reaches the pytest plugin."""

    flags: tuple[str, ...]
    group: str
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    plugin: str | None = None
    """The pytest flag that carries the value to the plugin; None: the command line only."""
    commands: tuple[Command, ...] = ("run",)
    bounds: Bounds | None = None
    """The accepted range of a number option (checked by :meth:`RunnerOptions.problems` and the config file)."""
    convert: Callable[[str], Any] | None = None
    """Turns the word into the value when the field's type alone cannot (raises argparse.ArgumentTypeError)."""
    spec_default: str | None = None
    """The key under ``measurement`` in spec/ccweb_spec/performance.yaml that gives the default (shown in --help)."""
    config_key: str | None = None
    """Its key in the config file, the GitHub Action's input of the same name (None: the last flag, no dashes)."""
    old_keys: tuple[str, ...] = ()
    """Config keys it had before, still read with a deprecation note (``k`` before ``keyword``)."""
    config_commands: tuple[Command, ...] | None = None
    """The commands the config file's value reaches (None: every command of ``commands``; (): not a config key)."""
    command_help: tuple[tuple[Command, str], ...] = ()
    """Help texts of commands that read the option differently (``spec --lang``: the document's language)."""
    bare_means_stdout: tuple[Command, ...] = ()
    """Commands where the flag alone, with no FILE, still means ``-`` (stdout), with a deprecation note: it was a
    switch there (``list --json``)."""

    @property
    def key(self) -> str:
        """The config file's key (and the Action's input name) of this option."""
        return self.config_key or self.flags[-1].lstrip("-")

    def read_by(self, command: str) -> bool:
        """Whether the config file's value reaches ``command``."""
        return command in (self.commands if self.config_commands is None else self.config_commands)

    def help_for(self, command: str) -> str:
        """The help text ``command`` shows."""
        return next((text for name, text in self.command_help if name == command), self.help)


def option(
    default: Any,
    *flags: str,
    group: str,
    help: str,
    metavar: str | None = None,
    choices: Sequence[str] | None = None,
    plugin: bool | str = True,
    commands: tuple[Command, ...] = ("run",),
    bounds: Bounds | None = None,
    convert: Callable[[str], Any] | None = None,
    spec_default: str | None = None,
    config_key: str | None = None,
    old_keys: tuple[str, ...] = (),
    config_commands: tuple[Command, ...] | None = None,
    command_help: Mapping[Command, str] | None = None,
    bare_means_stdout: tuple[Command, ...] = (),
) -> Any:
    """A dataclass field that is also a row of the option table.

    ``plugin=True`` derives the plugin flag from the first flag (``--timeout`` ->
    ``--ccweb-timeout``); a string names a pytest flag the plugin does not own (``-k``).
    """
    carrier = f"--ccweb-{flags[-1].lstrip('-')}" if plugin is True else (plugin or None)
    spec = OptionSpec(
        tuple(flags), group, help, metavar, tuple(choices) if choices else None, carrier, commands, bounds, convert,
        spec_default, config_key, old_keys, config_commands, tuple((command_help or {}).items()), bare_means_stdout,
    )
    return dataclasses.field(default=default, metadata={"option": spec})


RUN_AND_PROFILE: tuple[Command, ...] = ("run", "profile")
CUCUMBER_FLAVOURS = ("js", "jvm", "ruby")
REDACTED = "***"
"""What a secret is replaced with wherever it would be shown."""
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
CREDENTIAL_HEADER_WORDS = ("token", "key", "secret", "auth")
"""A header whose name holds one of these (any case) carries a credential."""
CREDENTIAL_ENV_WORDS = ("TOKEN", "KEY", "SECRET", "PASS", "AUTH", "COOKIE", "CREDENTIAL")
"""An ``--env`` variable whose name holds one of these (any case) carries a credential."""
SHORTEST_SECRET = 4
"""A credential value shorter than this is not looked for in text (it would hide ordinary words)."""
USER_INFORMATION = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#@\s]+)@")
"""A URL's user information (``user:password`` before ``@``), wherever a value holds one."""
HEADER = re.compile(r"^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$")
ENV_VARIABLE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
RUN_AND_LIST: tuple[Command, ...] = ("run", "list")
PROFILE: tuple[Command, ...] = ("profile",)
DOCUMENTS: tuple[Command, ...] = ("spec", "export")
NOT_IN_CONFIG: tuple[Command, ...] = ()
"""``config_commands`` of an option given on the command line only (a document's path, a description's file)."""
EMPTY_MEANS_EVERYTHING = frozenset({"keyword", "tags"})
"""Text options whose empty value selects every scenario, as pytest's ``-k ""`` does."""
EMPTY_HINTS = {
    "stdio": "give the command that starts your server (an unset variable in CI?), or leave --stdio out "
    "to test the bundled reference",
    "http_cmd": "give the command that starts your HTTP server (an unset variable in CI?)",
    "url": "give your server's URL (an unset variable in CI?)",
}
"""What to do about an empty option, where it says more than the default advice."""
SECONDS_PER_REQUEST = Bounds(0, 600, low_open=True, unit="seconds")
SECONDS_PER_RUN = Bounds(0, 86_400, low_open=True, unit="seconds")
"""A whole run (or its fuzz phase) ends within a day: a bound is a number, never inf."""


def parse_sizes(text: str) -> tuple[int, ...]:
    """``10,1000,1e4`` -> (10, 1000, 10000): positive message counts, ascending, no repeats."""
    sizes: list[int] = []
    for word in str(text).replace("_", "").split(","):
        try:
            number = float(word.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{word.strip()!r} is not a number of messages") from None
        if not math.isfinite(number) or number != int(number) or number < 1:
            raise argparse.ArgumentTypeError(f"{word.strip()!r} is not a whole number of messages of at least 1")
        sizes.append(int(number))
    return tuple(sorted(set(sizes)))


@dataclass(frozen=True)
class RunnerOptions:
    """What to test and how. Exactly one target kind is set, or none (the bundled reference)."""

    # --- target: which implementation; "run" and "profile" share these -------------------
    stdio: str | None = option(None, "--stdio", group="target", metavar="CMD", commands=RUN_AND_PROFILE,
        help="command that serves MCP over stdio ({sessions_dir} substituted)")
    http_cmd: str | None = option(None, "--http-cmd", group="target", metavar="CMD", commands=RUN_AND_PROFILE,
        help="command that serves Streamable HTTP ({port}, {sessions_dir})")
    url: str | None = option(None, "--url", group="target", metavar="URL", commands=RUN_AND_PROFILE,
        help="Streamable HTTP endpoint, e.g. http://127.0.0.1:{port}/mcp")
    sessions_dir: Path | None = option(None, "--sessions-dir", group="target", metavar="DIR", commands=RUN_AND_PROFILE,
        help="sessions directory the server reads (with --url: the running server's; with --stdio or "
        "--http-cmd: a directory of yours the spawned server is given); the runner only adds and removes "
        "its own files there (UUIDs sharing the run's 12 hex digits)")
    header: tuple[str, ...] = option((), "--header", group="target", metavar="'NAME: VALUE'", commands=RUN_AND_PROFILE,
        help="HTTP header sent on every request, e.g. 'Authorization: Bearer T' (repeatable; values are "
        "redacted in reports)")
    env: tuple[str, ...] = option((), "--env", group="target", metavar="KEY=VALUE", commands=RUN_AND_PROFILE,
        help="environment variable for a spawned server (--stdio, --http-cmd; repeatable)")
    secret_env: tuple[str, ...] = option((), "--secret-env", group="target", metavar="NAME", commands=RUN_AND_PROFILE,
        help="an --env variable whose value is redacted in reports and messages, besides those named like a "
        "credential (repeatable)")
    in_process: bool = option(False, "--in-process", group="target",
        help="the bundled reference inside this process (the kit's own fast tests)")
    # --- binding: how the runner talks to it --------------------------------------------
    protocol: Protocol = option("auto", "--protocol", group="binding", choices=PROTOCOLS, commands=RUN_AND_PROFILE,
        help="MCP era (default: auto-detect)")
    source_env: str = option(ccweb_spec.binding().source_env, "--source-env", group="binding", metavar="NAME",
        commands=RUN_AND_PROFILE, help="stdio source variable (default: %(default)s)")
    source_header: str = option(ccweb_spec.binding().source_header, "--source-header", group="binding", metavar="NAME",
        commands=RUN_AND_PROFILE, help="HTTP source header (default: %(default)s)")
    timeout: float = option(10.0, "--timeout", group="binding", metavar="SECONDS", commands=RUN_AND_PROFILE,
        bounds=SECONDS_PER_REQUEST, help="per request (default: %(default)s)")
    max_message_bytes: int = option(16 * 1024 * 1024, "--max-message-bytes", group="binding", metavar="BYTES",
        commands=RUN_AND_PROFILE, bounds=Bounds(1024, 1 << 30),
        help="largest message accepted from the server (default: %(default)s)")
    max_time: float = option(1800.0, "--max-time", group="binding", metavar="SECONDS", bounds=SECONDS_PER_RUN,
        help="whole-run bound: scenarios left at this point are not run, exit 1 (default: %(default)s)")
    stop_after: int = option(3, "--stop-after", group="binding", metavar="N", bounds=Bounds(1),
        help="scenarios in a row in which the server died or timed out, or broke the protocol the same way,"
        " before the rest is not run (default: %(default)s)")
    jobs: int = option(4, "--jobs", group="binding", metavar="N", bounds=Bounds(1, 8), plugin=False,
        help="scenarios run at the same time, up to N, each on a connection (over stdio a server process) of its "
        "own; those that need the sessions folder quiet run alone; reports, -x and --stop-after as one after "
        "another (default: %(default)s; 1: one after another)")
    # --- selection: which scenarios, and how their verdicts count -----------------------
    keyword: str | None = option(None, "-k", group="selection", metavar="EXPR", plugin="-k", commands=RUN_AND_LIST,
        config_key="keyword", old_keys=("k",), help="only scenarios whose test name matches EXPR (pytest -k)")
    tags: str | None = option(None, "--tags", group="selection", metavar="TAGS", commands=RUN_AND_LIST,
        help="only scenarios tagged with one of TAGS (e.g. AC-7,SRC-1)")
    expected_failures: Path | None = option(None, "--expected-failures", group="selection", metavar="FILE",
        help="YAML file of known failures")
    strict: bool = option(False, "--strict", group="selection",
        help="SHOULD-level failures fail the run")
    last_failed: bool = option(False, "--lf", "--last-failed", group="selection", plugin=False,
        help="rerun only the scenarios that failed in the last runs against the same target (recorded in "
        "./.ccweb-conformance/); with no recorded failure, every scenario")
    exitfirst: bool = option(False, "-x", "--exitfirst", group="selection", plugin=False,
        help="stop at the first failed scenario: the rest is reported as not run, exit 1")
    no_rerun: bool = option(False, "--no-rerun", group="selection", plugin=False,
        help="after a failed run, do not rerun one scenario of each group of failures alone on a fresh server "
        "to say whether the failure reproduces alone")
    collect_only: bool = option(False, "--co", "--collect-only", group="selection", plugin="--collect-only",
        help="list the scenarios this selection would run, start nothing, write no report, exit 0")
    # --- fuzzing: the differential phase after the scenarios ----------------------------
    fuzz: int | None = option(None, "--fuzz", group="fuzzing", metavar="N", plugin=False,
        help="compare N generated conversations with the reference (default: a short phase after every "
        "full run, 60 cases; 0: no fuzzing)")
    seed: int = option(0, "--seed", group="fuzzing", metavar="S", plugin=False,
        help="same seed, same cases (default: %(default)s)")
    fuzz_time: float | None = option(None, "--fuzz-time", group="fuzzing", metavar="SECONDS", plugin=False,
        bounds=SECONDS_PER_RUN,
        help="a safety bound: a phase still running after this long fails as incomplete "
        "(default: 30 + 0.25 per call)")
    # --- profile: the sizes and repetitions of ``ccweb-conformance profile`` ---------------
    sizes: tuple[int, ...] | None = option(None, "--sizes", group="profile", metavar="N,N,...", plugin=False,
        commands=PROFILE, convert=parse_sizes, spec_default="sizes",
        help="comma-separated message counts to profile (default: %(spec_default)s, those up to --max-size)")
    max_size: int | None = option(None, "--max-size", group="profile", metavar="N", plugin=False, commands=PROFILE,
        bounds=Bounds(1), spec_default="max_size",
        help="the largest conversation to write, in messages (default: %(spec_default)s)")
    repeats: int | None = option(None, "--repeats", group="profile", metavar="N", plugin=False, commands=PROFILE,
        bounds=Bounds(1), spec_default="repeats",
        help="calls on the unchanged file per size (default: %(spec_default)s)")
    settle: float | None = option(None, "--settle", group="profile", metavar="SECONDS", plugin=False,
        commands=PROFILE, bounds=Bounds(0, 60, unit="seconds"), spec_default="settle_seconds",
        help="seconds the file is left unchanged before the repeated calls, so a cache that distrusts "
        "fresh file times can use itself (default: %(spec_default)s)")
    no_reference: bool = option(False, "--no-reference", group="profile", plugin=False, commands=PROFILE,
        help="do not profile the bundled reference beside it")
    # --- reports ------------------------------------------------------------------------
    junitxml: Path | None = option(None, "--junitxml", group="reports", metavar="FILE", plugin=False,
        help="write JUnit XML")
    json: Path | None = option(None, "--json", group="reports", metavar="FILE", plugin=False,
        commands=("run", "profile", "list"), config_commands=RUN_AND_PROFILE, bare_means_stdout=("list",),
        command_help={"list": "write the listing as JSON to FILE (- for stdout; --json alone, the old switch, is "
        "still read as -)"},
        help="write the JSON report (versioned schema)")
    cucumberjson: Path | None = option(None, "--cucumberjson", group="reports", metavar="FILE", plugin=False,
        help="write Cucumber JSON")
    cucumber_flavour: str = option("js", "--cucumber-flavour", group="reports", choices=CUCUMBER_FLAVOURS,
        plugin=False, help="which cucumber-json-schema the Cucumber JSON follows (default: %(default)s)")
    markdown: Path | None = option(None, "--markdown", group="reports", metavar="FILE", plugin=False,
        commands=RUN_AND_PROFILE, help="write a Markdown summary (CI step summary)")
    svg: Path | None = option(None, "--svg", group="reports", metavar="FILE", plugin=False, commands=PROFILE,
        help="write an SVG line chart of latency against size")
    verbose: bool = option(False, "-v", "--verbose", group="reports", plugin=False,
        help="list every scenario and full messages")
    lang: str | None = option(None, "--lang", group="language", choices=LANGUAGES, plugin=False,
        commands=("run", "profile", "check-description", "spec"), config_commands=("run", "profile",
        "check-description"), command_help={
            "spec": "language of the document (default: en, whatever LC_ALL or LANG say)",
            "check-description": "language of the output (default: zh-CN when LC_ALL or LANG starts with zh)",
        },
        help="language of the console (summary, failure blocks, hints) and the Markdown report "
        "(default: zh-CN when LC_ALL or LANG starts with zh)")
    # --- document: where ``spec`` and ``export`` put what they render ---------------------
    output: Path | None = option(None, "--output", group="document", metavar="FILE", plugin=False,
        commands=DOCUMENTS, config_commands=NOT_IN_CONFIG, command_help={
            "spec": "write the Markdown to FILE (a folder, a named pipe or a socket is a usage error, checked "
            "before any work)",
        },
        help="write the document to FILE (a folder, a named pipe or a socket is a usage error, checked before "
        "any work)")
    check: Path | None = option(None, "--check", group="document", metavar="FILE", plugin=False,
        commands=DOCUMENTS, config_commands=NOT_IN_CONFIG, command_help={
            "spec": "exit 1 if FILE differs from a fresh render",
        },
        help="exit 1 if FILE differs from a fresh export")
    # --- description: what ``check-description`` reads ---------------------------------
    file: Path | None = option(None, "--file", group="description", metavar="FILE", plugin=False,
        commands=("check-description",), config_commands=NOT_IN_CONFIG,
        help="read the description from FILE (UTF-8, at most 1 MiB; a named pipe or socket is a usage error)")

    def problems(self) -> list[str]:
        """Usage errors in these options, each one line."""
        found = self._empty_problems()
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
            found.append(f"--url {without_user_information(self.url)!r} is not an http:// or https:// URL")
        return found + self._bound_problems()

    def _empty_problems(self) -> list[str]:
        """A text option given empty: ``--stdio "$UNSET"`` would otherwise test the bundled reference and pass."""
        return [
            f"{row.spec.flags[-1]} is empty: {EMPTY_HINTS.get(row.name, 'give it a value, or leave the option out')}"
            for row in table()
            if row.kind in (str, str | None)
            and row.name not in EMPTY_MEANS_EVERYTHING
            and isinstance(getattr(self, row.name), str)
            and not getattr(self, row.name).strip()
        ]

    def _bound_problems(self) -> list[str]:
        """Usage errors in the options past the target: bounds, protocol, files, fuzzing."""
        found: list[str] = []
        for row in table():
            value = getattr(self, row.name)
            problem = None if row.spec.bounds is None or value is None else row.spec.bounds.problem(value)
            if problem is not None:
                found.append(f"{row.spec.flags[-1]} {value} {problem}")
        if self.protocol not in PROTOCOLS:
            found.append(f"--protocol {self.protocol!r} is not one of {', '.join(PROTOCOLS)}")
        if self.expected_failures is not None and not self.expected_failures.is_file():
            found.append(f"--expected-failures {str(self.expected_failures)!r} is not a file")
        if self.fuzz is not None and self.fuzz < 0:
            found.append(f"--fuzz {self.fuzz} must be 0 (no fuzzing) or more")
        if self.output is not None and self.check is not None:
            found.append("--output and --check: give one (--check compares, --output writes)")
        return found + self._header_and_env_problems() + self._report_problems()

    def _header_and_env_problems(self) -> list[str]:
        found: list[str] = []
        for header in self.header:
            if HEADER.match(header) is None:
                name = header.split(":", 1)[0]
                found.append(f"--header {name!r}...: expected 'Name: value' with a header name of letters, digits, -")
        if self.header and not self.url:
            found.append("--header needs an HTTP target (--url, or --http-cmd with --url)")
        for variable in self.env:
            if ENV_VARIABLE.match(variable) is None:
                found.append(f"--env {variable.split('=', 1)[0]!r}...: expected KEY=VALUE")
        if self.env and not (self.stdio or self.http_cmd or not (self.url or self.in_process)):
            found.append("--env is for a spawned server (--stdio, --http-cmd or the bundled reference)")
        return found

    def reports(self) -> list[tuple[str, str, Path]]:
        """The report options given, as (option, flag, path), in table order."""
        return [
            (row.name, row.spec.flags[-1], getattr(self, row.name))
            for row in table()
            if row.spec.group == "reports" and row.kind == Path | None and getattr(self, row.name) is not None
        ]

    def _report_problems(self) -> list[str]:
        """One path per report, at most one on stdout, every folder there."""
        found: list[str] = []
        given = self.reports()
        if sum(str(path) == STDOUT for _, _, path in given) > 1:
            found.append("only one report can go to stdout (-)")
        seen: dict[Path, str] = {}
        for _, flag, path in given:
            if str(path) == STDOUT:
                continue
            where = path.resolve()
            if where in seen:
                found.append(f"{seen[where]} and {flag} both write {str(path)!r}; give each its own")
            elif (problem := write_target_problem(path)) is not None:
                found.append(problem)
            seen.setdefault(where, flag)
        return found


@dataclass(frozen=True)
class TableRow:
    """One option: its field name, type, default and how it is spelled."""

    name: str
    kind: Any
    default: Any
    spec: OptionSpec

    @property
    def is_flag(self) -> bool:
        """A switch without a value."""
        return self.kind is bool

    @property
    def is_repeatable(self) -> bool:
        """An option given any number of times (a ``tuple[str, ...]`` field)."""
        return typing.get_origin(self.kind) is tuple


@cache
def table() -> tuple[TableRow, ...]:
    """Every option, in declaration order (read once: the type hints are resolved here)."""
    hints = typing.get_type_hints(RunnerOptions)
    return tuple(
        TableRow(f.name, hints[f.name], f.default, f.metadata["option"])
        for f in dataclasses.fields(RunnerOptions)
        if "option" in f.metadata
    )


def path_word(word: str) -> Path:
    """A path from the command line or the config file; an empty one (``--json "$UNSET"``) is a usage error."""
    if not word.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty string")
    return Path(word)


def write_target_problem(path: Path) -> str | None:
    """Why a file cannot be written at ``path``, or None: the one check of every path the runner writes.

    A missing folder is created when the file is written (as pytest does for ``--junitxml``), so it is
    refused only under something that is not a folder, or where it cannot be created. Refused too: a
    folder, and a file that could block the command for ever, a named pipe (FIFO), a socket or a block
    device (:func:`special_file`). A character device (``/dev/null``, ``/dev/full``, a terminal) and
    the runner's own stdout or stderr (``/dev/stdout`` in a pipeline, ``/dev/fd/N`` from ``>(...)``)
    are accepted and written with a bounded wait (:func:`ccweb_conformance.reports.output.write_atomically`).
    """
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot write {str(path)!r}: {str(ancestor)!r} is not a folder"
    if ancestor != path.parent and not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot write {str(path)!r}: its folder cannot be created in {str(ancestor)!r} (permission denied)"
    if path.resolve().is_dir():
        return f"cannot write {str(path)!r}: it is a folder; name a file in it"
    kind = special_file(path, own=(1, 2))
    if kind is not None:
        return (
            f"cannot write {str(path)!r}: it is {kind}, which could block the command; name a regular file, "
            "or - for stdout"
        )
    return None


_SPECIAL_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISBLK, "a block device"))
_OWN_FD = re.compile(r"^/(?:dev/fd|proc/self/fd)/(\d+)$")


def special_file(path: Path, *, own: Iterable[int] = (), status: os.stat_result | None = None) -> str | None:
    """What ``path`` is when opening or using it could block for ever ("a named pipe (FIFO)"), else None.

    None for a regular file, a folder, a character device, a path that does not exist, and a pipe
    the runner itself holds open: one of its descriptors ``own`` (its stdout and stderr), or
    ``/dev/fd/N`` for an open N. ``status``: the file's status when it is already open (``os.fstat``).
    """
    try:
        found = status if status is not None else os.stat(path)
    except (OSError, ValueError):
        return None
    kind = next((name for test, name in _SPECIAL_KINDS if test(found.st_mode)), None)
    if kind is None:
        return None
    numbers = set(own)
    named = _OWN_FD.match(str(path))
    if named is not None:
        numbers.add(int(named[1]))
    return None if any(open_on(number, found) for number in numbers) else kind


def open_on(number: int, found: os.stat_result) -> bool:
    """Whether the runner's descriptor ``number`` is open on the file ``found`` describes (False when closed)."""
    try:
        return os.path.samestat(os.fstat(number), found)
    except OSError:
        return False


def _converter(kind: Any) -> Callable[[str], Any] | None:
    """The function that turns a command-line string into the field's type."""
    first = next((a for a in typing.get_args(kind) if a is not type(None)), kind)
    if first is Path:
        return path_word
    if first in (int, float, str):
        return first  # type: ignore[no-any-return]
    return None


class _BareMeansStdout(argparse.Action):
    """A report option that was a switch for this command: alone (no FILE) it still means ``-``, with a note."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, flag: str | None = None
    ) -> None:
        if values is None:
            print(
                f"ccweb-conformance: note: {parser.prog.split()[-1]} {flag} without FILE is deprecated: give a FILE, "
                f"or {flag} - for stdout, as 'run {flag}' takes",
                file=sys.stderr,
            )
            values = Path(STDOUT)
        setattr(namespace, self.dest, values)


def _argparse_keywords(row: TableRow, dest: str, command: str = "run") -> dict[str, Any]:
    """How argparse (and pytest's addoption, which takes the same keywords) reads one row for ``command``."""
    kwargs: dict[str, Any] = {"dest": dest, "help": row.spec.help_for(command), "default": row.default}
    if command in row.spec.bare_means_stdout:
        kwargs.update(action=_BareMeansStdout, nargs="?", metavar=row.spec.metavar, type=_converter(row.kind))
        return kwargs
    if row.spec.convert is not None:
        kwargs.update(metavar=row.spec.metavar, type=row.spec.convert)
        return kwargs
    if row.is_flag:
        kwargs["action"] = "store_true"
    elif row.is_repeatable:
        kwargs.update(action="append", default=None, metavar=row.spec.metavar)
    else:
        kwargs.update(metavar=row.spec.metavar, choices=row.spec.choices)
        convert = _converter(row.kind)
        if convert is not None:
            kwargs["type"] = convert
    return kwargs


def add_arguments(parser: argparse.ArgumentParser, command: Command) -> None:
    """The options of ``command``, grouped as ``--help`` shows them; defaults from the table."""
    groups: dict[str, Any] = {}
    for row in table():
        if command not in row.spec.commands:
            continue
        if row.spec.group not in groups:
            groups[row.spec.group] = parser.add_argument_group(GROUPS[row.spec.group])
        action = groups[row.spec.group].add_argument(*row.spec.flags, **_argparse_keywords(row, row.name, command))
        if row.spec.spec_default is not None:
            setattr(action, "spec_default", SpecDefault(row.spec.spec_default))  # noqa: B010 (shown by --help)


class SpecDefault:
    """A default from spec/ccweb_spec/performance.yaml, read only when ``--help`` shows it."""

    def __init__(self, key: str) -> None:
        self.key = key

    def __str__(self) -> str:
        value = ccweb_spec.performance()["measurement"][self.key]
        return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def resolve(values: Mapping[str, Any]) -> RunnerOptions:
    """The options of a command from its parsed values, validated once: UsageError names the first problem."""
    options = from_values(values)
    problems = options.problems()
    if problems:
        raise UsageError(problems[0])
    return options


def from_values(values: Mapping[str, Any]) -> RunnerOptions:
    """Options from parsed values by field name (missing ones keep their defaults)."""
    rows = {row.name: row for row in table()}
    kept: dict[str, Any] = {n: tuple(v or ()) if rows[n].is_repeatable else v for n, v in values.items() if n in rows}
    return RunnerOptions(**kept)


def plugin_rows() -> list[TableRow]:
    """The options that reach the pytest plugin as its own ``--ccweb-*`` flags."""
    return [row for row in table() if row.spec.plugin and row.spec.plugin.startswith("--ccweb-")]


def plugin_dest(row: TableRow) -> str:
    """The pytest option name (``config.getoption``) of a plugin row."""
    return "ccweb_" + row.name


def plugin_options(addoption: Callable[..., None]) -> None:
    """Declare the plugin's ``--ccweb-*`` options with ``addoption`` (pytest's group.addoption)."""
    for row in plugin_rows():
        assert row.spec.plugin is not None
        addoption(row.spec.plugin, **_argparse_keywords(row, plugin_dest(row)))


def from_plugin(getoption: Callable[[str], Any]) -> RunnerOptions:
    """Options from the plugin's parsed ``--ccweb-*`` values (``config.getoption``)."""
    return from_values({row.name: getoption(plugin_dest(row)) for row in plugin_rows()})


def _words(row: TableRow, value: Any) -> list[str]:
    """The flag and value of a non-default option, secrets redacted."""
    flag = row.spec.flags[-1]
    if row.is_flag:
        return [flag] if value else []
    if row.is_repeatable:
        return [word for v in value for word in (flag, _redacted(row, v))]
    if value is None:
        return []
    if isinstance(value, str):
        value = _redacted(row, value)
    return [flag, f"{value:g}" if isinstance(value, float) else str(value)]


def command_line(options: RunnerOptions, groups: Iterable[str]) -> list[str]:
    """The ``ccweb-conformance`` flags that reproduce the non-default options of these groups."""
    wanted = set(groups)
    given = [(row, getattr(options, row.name)) for row in table() if row.spec.group in wanted]
    return [word for row, value in given if value != row.default for word in _words(row, value)]


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret in it replaced by :data:`REDACTED`, the longest first."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def without_user_information(text: str) -> str:
    """``text`` with every URL's user information replaced by :data:`REDACTED` (``http://***@host/mcp``)."""
    return USER_INFORMATION.sub(lambda match: match[0].replace(match[1], REDACTED), text)


def _redacted(row: TableRow, value: str) -> str:
    """A header or ``--env`` with its value replaced by :data:`REDACTED`, a URL without its user information (other
    options unchanged)."""
    if row.name == "url":
        return without_user_information(value)
    if row.name == "env":
        return f"{value.split('=', 1)[0]}={REDACTED}"
    if row.name != "header":
        return value
    return f"{value.split(':', 1)[0]}: {REDACTED}"
