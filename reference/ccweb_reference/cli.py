"""``ccweb-reference``: run the reference server over stdio or Streamable HTTP."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

import ccweb_spec
from ccweb_reference.sdk import Server
from ccweb_reference.server import SOURCE_ENV, SOURCE_HEADER, Binding, build_server
from ccweb_reference.stdio import serve_stdio
from ccweb_reference.store import DEFAULT_MAX_FILE_BYTES, DEFAULT_READ_BUDGET_BYTES, SMALL_READ_BYTES, SessionStore

SESSIONS_ENV = ccweb_spec.binding().sessions_dir_env
USAGE_ERROR = 2

EPILOG = f"""
examples:
  ccweb-reference --sessions-dir ~/.cc-web/sessions            # stdio; source from ${SOURCE_ENV}
  ccweb-reference --sessions-dir DIR --http --port 8765         # http://127.0.0.1:8765/mcp
  ccweb-reference --sessions-dir DIR --http --host 0.0.0.0 --port 8765 --auth-token SECRET

The sessions directory may also come from ${SESSIONS_ENV}. Over HTTP the source
conversation is the request header {SOURCE_HEADER}.
"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(
        prog="ccweb-reference",
        description="Reference MCP server for the tool ccweb_list_user_inputs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--sessions-dir", type=_not_empty(Path), help=f"cc-web sessions directory (default: ${SESSIONS_ENV})"
    )
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default: 8765; 0 picks a free one)")
    parser.add_argument("--auth-token", help="require 'Authorization: Bearer TOKEN' (needed off loopback)")
    parser.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN", help="also accept this Origin (repeatable)"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="also accept this Host header, e.g. the name clients use off loopback (repeatable)",
    )
    parser.add_argument(
        "--max-file-bytes",
        type=_positive(int),
        default=DEFAULT_MAX_FILE_BYTES,
        metavar="BYTES",
        help="largest conversation file read; a larger one is answered conversation_unreadable"
        f" (default: {DEFAULT_MAX_FILE_BYTES})",
    )
    parser.add_argument(
        "--read-budget-bytes",
        type=_positive(int),
        default=DEFAULT_READ_BUDGET_BYTES,
        metavar="BYTES",
        help="bytes of conversation files read and parsed at once, over stdio and HTTP; beyond it a call waits"
        f" (files under {SMALL_READ_BYTES:,} bytes are not counted; default: {DEFAULT_READ_BUDGET_BYTES})",
    )
    _add_limits(parser)
    parser.add_argument(
        "--source-env", default=SOURCE_ENV, type=_not_empty(str), help=f"stdio source variable (default: {SOURCE_ENV})"
    )
    parser.add_argument(
        "--source-header",
        default=SOURCE_HEADER,
        type=_not_empty(str),
        help=f"HTTP source header (default: {SOURCE_HEADER})",
    )
    return parser.parse_args(argv)


def _not_empty(kind: type[str] | type[Path]) -> Callable[[str], Any]:
    """A converter that refuses an empty value (``--sessions-dir "$UNSET"`` would serve the working directory)."""

    def parse(text: str) -> Any:
        if not text.strip():
            raise argparse.ArgumentTypeError("expected a value, got an empty string")
        return kind(text)

    return parse


def _positive(kind: type[int] | type[float]) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not 0 < value < float("inf"):
            raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
        return value

    return parse


def _add_limits(parser: argparse.ArgumentParser) -> None:
    """The HTTP resource bounds, defaults from :class:`ccweb_reference.http_limits.HttpLimits`."""
    from ccweb_reference.http_limits import HttpLimits  # noqa: PLC0415  (uvicorn: HTTP only)

    bounds = HttpLimits()
    group = parser.add_argument_group("HTTP resource bounds")
    options: list[tuple[str, type[int] | type[float], str, str]] = [
        ("--header-timeout", float, "SECONDS", "close a connection whose request head is not complete in time"),
        ("--body-timeout", float, "SECONDS", "close a connection whose request body is not complete in time"),
        (
            "--min-body-rate",
            float,
            "BYTES/S",
            "close a connection whose request body arrives slower than this (averaged, judged each second)",
        ),
        ("--idle-timeout", float, "SECONDS", "close a connection that sends nothing for this long"),
        (
            "--max-connections",
            int,
            "N",
            "open connections; beyond it an idle one or a slow body is closed, else 503",
        ),
        ("--max-header-bytes", int, "BYTES", "largest request head"),
        ("--max-sessions", int, "N", "open legacy (initialize) sessions; beyond it 503"),
        ("--session-idle-timeout", float, "SECONDS", "end a legacy session unused for this long"),
        ("--log-interval", float, "SECONDS", "at most one log line per kind of refusal in this time"),
    ]
    for flag, kind, metavar, text in options:
        default = getattr(bounds, flag[2:].replace("-", "_"))
        group.add_argument(
            flag, type=_positive(kind), default=default, metavar=metavar, help=f"{text} (default: {default:g})"
        )


def limits_of(args: argparse.Namespace) -> Any:
    """The :class:`~ccweb_reference.http_limits.HttpLimits` the options ask for."""
    from ccweb_reference.http_limits import HttpLimits  # noqa: PLC0415

    return HttpLimits(**{f.name: getattr(args, f.name) for f in dataclasses.fields(HttpLimits)})


def fail(message: str) -> int:
    """Print a one-line usage error and return the exit code for it."""
    print(f"ccweb-reference: error: {message}", file=sys.stderr)
    return USAGE_ERROR


def _http_problem(args: argparse.Namespace) -> str | None:
    """Why the HTTP options cannot be served, or None."""
    from ccweb_reference.http import is_loopback  # noqa: PLC0415  (see _serve_http)

    if args.auth_token is not None and not args.auth_token.strip():
        return "--auth-token must not be empty"  # it would lock every client out
    if not is_loopback(args.host) and not args.auth_token:
        return f"refusing to bind {args.host}, which is not loopback, without --auth-token"
    if not 0 <= args.port <= 65535:
        return f"port {args.port} is out of range"
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    sessions_dir = args.sessions_dir or (Path(os.environ[SESSIONS_ENV]) if os.environ.get(SESSIONS_ENV) else None)
    if sessions_dir is None:
        return fail(f"no sessions directory: pass --sessions-dir or set {SESSIONS_ENV}")
    if not sessions_dir.is_dir():
        return fail(f"sessions directory {str(sessions_dir)!r} does not exist or is not a directory")
    store = SessionStore(sessions_dir, args.max_file_bytes, args.read_budget_bytes)
    if not args.http:
        server = build_server(store, Binding(fixed_source=os.environ.get(args.source_env)))
        anyio.run(serve_stdio, server)
        return 0
    problem = _http_problem(args)
    if problem is not None:
        return fail(problem)
    _serve_http(build_server(store, Binding(source_header=args.source_header)), args)
    return 0


def _serve_http(server: Server[Any], args: argparse.Namespace) -> None:
    """Serve Streamable HTTP. Imported here: a stdio server starts without uvicorn and Starlette."""
    from ccweb_reference.http import build_app, serve_http  # noqa: PLC0415

    limits = limits_of(args)
    app = build_app(
        server, args.host, args.auth_token, args.allow_origin, args.allow_host, limits, source_header=args.source_header
    )
    serve_http(app, args.host, args.port, limits)


if __name__ == "__main__":
    sys.exit(main())
