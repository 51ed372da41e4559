"""``ccweb-conformance``: parse the command line and dispatch to a command of ``commands/``.

The top-level parser is built from :data:`ccweb_conformance.commands.REGISTRY` alone, so
``--version`` and ``--help`` import no command; the command being run is imported, configures
its own parser (its options from the one option table) and does the work on the shared
session. The config file's values become that command's defaults (the command line wins).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import cast

from ccweb_conformance import kit_version
from ccweb_conformance.commands import REGISTRY, entry, heap, help_text
from ccweb_conformance.errors import (
    EXIT_FAILED,
    EXIT_USAGE,
    EnvironmentFault,
    RunInterrupted,
    UsageError,
    environment_problem,
    interrupted_exit_code,
    missing_working_directory,
)

PLATFORMS = "Linux and macOS (on Windows, run it inside WSL)"
WINDOWS_MESSAGE = f"ccweb-conformance supports {PLATFORMS}; Windows itself is not supported"


CONFIG_FILE_KEY = "config_file"
"""Where the parsed arguments carry the path of the config file in use (named in the reports)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _top_epilog() -> str:
    width = max(len(e.name) for e in REGISTRY)
    lines = [f"  {e.name.ljust(width)} {e.help}" for e in REGISTRY]
    return "\ncommands:\n" + "\n".join(lines) + "\n" + help_text("top")


class _Version(argparse.Action):
    """``--version``: the contract's version is read only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the kit's and the contract's versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        import ccweb_spec  # noqa: PLC0415 (only --version needs the contract's version)

        print(f"ccweb-conformance {kit_version()} (spec {ccweb_spec.contract_version()})")
        parser.exit()


def command_module(name: str) -> ModuleType:
    """The module of the command ``name`` (it defines ``configure`` and ``main``)."""
    found = entry(name)
    assert found is not None, name
    with heap.importing():  # what a command imports lives as long as the process: no collection while it loads
        return importlib.import_module(found.module)


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The command line: every command listed; the ``chosen`` one (None: all) configured: its epilog
    (``help/NAME.txt``), what its module's ``configure`` sets, its rows of the option table."""
    parser = _Parser(
        prog="ccweb-conformance",
        description="Conformance suite for the MCP tool ccweb_list_user_inputs.",
        epilog=_top_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in REGISTRY:
        sub = commands.add_parser(
            command.name, help=command.help, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        if chosen is None or command.name == chosen:
            sub.epilog = help_text(command.name)  # its examples; configure may fill in names
            command_module(command.name).configure(sub)
            from ccweb_conformance.options import Command, add_arguments  # noqa: PLC0415 (imported by the command)

            add_arguments(sub, cast("Command", command.name))
            sub.set_defaults(handler=command.name)
    return parser


def _config_defaults(parser: argparse.ArgumentParser, command: str) -> None:
    """Make the config file's values the defaults of the command being run (the command line wins)."""
    from ccweb_conformance.config import load_config  # noqa: PLC0415 (tomllib: only when a command runs)

    try:
        folder = Path.cwd()
    except OSError as error:  # removed under the runner (rmdir from another shell)
        raise EnvironmentFault(missing_working_directory(error)) from None
    path, values = load_config(folder, command)
    if path is None:
        return
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    subparsers.choices[command].set_defaults(**values, **{CONFIG_FILE_KEY: str(path)})


def _reopen_closed_standard_streams() -> None:
    """A standard stream the caller closed (``>&-``) is opened on the null device.

    Otherwise ``sys.stdout`` is None (a traceback at the first console call), and the next file
    the runner opens would take the number 1 and receive what was meant for the console.
    """
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        try:
            os.fstat(number)
        except OSError:
            nowhere = os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one, as the lower ones are open
            if nowhere != number:
                os.dup2(nowhere, number)
                os.close(nowhere)
            mode = "r" if number == 0 else "w"
            setattr(sys, name, open(number, mode, encoding="utf-8", errors="backslashreplace", closefd=False))  # noqa: SIM115


def safe_console() -> None:
    """Make stdout and stderr escape what their encoding cannot carry instead of raising.

    A server can send any string (lone surrogates from a UTF-16 length bug), and the console
    may be in any encoding (GBK has no emoji): ``backslashreplace`` prints ``\\udc80``.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError, TypeError):  # a stream that cannot change
                reconfigure(errors="backslashreplace")


def _dispatch(words: list[str]) -> int:
    """Parse ``words`` (config file values as defaults) and run the command they name."""
    first = next((w for w in words if not w.startswith("-")), None)  # the command the words name, if it is one
    chosen = first if first is not None and entry(first) is not None else None
    with heap.frozen():  # what the command's modules made is walked by no collection while the command runs
        with heap.importing(freeze=True):
            parser = build_parser(chosen or "")
        if chosen is not None:
            _config_defaults(parser, chosen)
        args = parser.parse_args(words)
        if getattr(args, "handler", None) is None:
            parser.print_help()
            return EXIT_USAGE
        code: int = command_module(args.handler).main(args)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: never a traceback for bad input."""
    if sys.platform == "win32":
        print(f"ccweb-conformance: error: {WINDOWS_MESSAGE}", file=sys.stderr)
        return EXIT_USAGE
    _reopen_closed_standard_streams()
    safe_console()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(words)
    except (UsageError, EnvironmentFault) as error:
        print(f"ccweb-conformance: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as interrupt:
        signum = interrupt.signum if isinstance(interrupt, RunInterrupted) else int(signal.SIGINT)
        print(f"ccweb-conformance: interrupted by {signal.Signals(signum).name}", file=sys.stderr)
        return interrupted_exit_code(signum)
    except BrokenPipeError:  # the reader of stdout went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
    except (OSError, RuntimeError) as error:  # the session's clean-up has run: what the command started is stopped
        problem = environment_problem(error)
        if problem is None:
            raise
        print(f"ccweb-conformance: error: {problem}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
