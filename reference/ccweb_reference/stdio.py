"""MCP over stdin/stdout, one JSON-RPC message per line.

The SDK's ``stdio_server`` writes with pydantic's JSON writer, which raises on lone
surrogates (D-3), and reads with pydantic's JSON parser, which rejects a ``\\ud800``
escape, so such a request would never be answered. This transport is the same loop with
:mod:`ccweb_reference.wire` as the writer and :func:`json.loads` as the parser. A line
that is not a JSON-RPC message (``NaN`` and ``Infinity`` are not JSON) is handed to the
SDK's loop as an error, as the SDK does, and gets no answer.

Calls run on worker threads, so a request can still be in flight when stdin closes (``echo
REQUEST | ccweb-reference``): the loop ends only once every request read has been answered or
cancelled (``notifications/cancelled``: MCP sends no answer to a cancelled request), or
:data:`DRAIN_S` after stdin closed.

The loop (:func:`serve_lines`) takes its input and output as parameters, so that a host can
serve the reference through it on a pipe of its own (the conformance runner's in-process
target does) and get exactly what a process would answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterable, Callable
from typing import Any, TextIO

import anyio

from ccweb_reference import wire
from ccweb_reference.decode import reject_constant
from ccweb_reference.sdk import Server, SessionMessage, types

DRAIN_S = 30.0
"""The longest wait, after stdin closed, for answers to the requests already read."""


def parse_message(line: str) -> types.JSONRPCMessage:
    """One JSON-RPC message; lone-surrogate escapes in strings are kept, as JSON allows."""
    document = json.loads(line, parse_constant=reject_constant)
    return types.jsonrpc_message_adapter.validate_python(document, by_name=False)


def _cancelled(message: types.JSONRPCMessage) -> types.RequestId | None:
    """The request a ``notifications/cancelled`` names, else None."""
    if not isinstance(message, types.JSONRPCNotification) or message.method != "notifications/cancelled":
        return None
    params = message.params or {}
    request_id = params.get("requestId")
    return request_id if isinstance(request_id, str | int) and not isinstance(request_id, bool) else None


def open_lines(fd: int, *, closefd: bool) -> TextIO:
    """The text lines of ``fd`` as the loop reads stdin: UTF-8, a byte that is not UTF-8 kept as a surrogate escape."""
    return open(fd, encoding="utf-8", errors="surrogateescape", closefd=closefd)


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin closes."""
    stdout = sys.stdout.buffer

    def write(line: bytes) -> None:
        stdout.write(line)
        stdout.flush()

    with open_lines(sys.stdin.fileno(), closefd=False) as stdin:
        await serve_lines(server, anyio.wrap_file(stdin), write)


async def serve_lines(server: Server[Any], lines: AsyncIterable[str], write: Callable[[bytes], object]) -> None:
    """Serve ``server``: a message from each of ``lines``, each answer one ``write`` of a line (newline included).

    Ends once ``lines`` is exhausted and every request read has been answered (at most
    :data:`DRAIN_S` later).
    """
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    pending: set[types.RequestId] = set()
    answered = [anyio.Event()]  # set, and replaced, whenever an answer is written

    async def read_lines() -> None:
        async with read_writer:
            async for line in lines:
                if not line.strip():
                    continue
                try:
                    message = parse_message(line)
                except Exception as exc:  # a malformed line: handed to the SDK's loop
                    await read_writer.send(exc)
                    continue
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                elif _cancelled(message) in pending:  # a cancelled request is never answered (MCP): not awaited
                    pending.discard(_cancelled(message))
                    answered.pop().set()
                    answered.append(anyio.Event())
                await read_writer.send(SessionMessage(message))
            with anyio.move_on_after(DRAIN_S):
                while pending:
                    await answered[0].wait()

    async def write_lines() -> None:
        async with write_reader:
            async for session_message in write_reader:
                data = session_message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                write(wire.dumps(data).encode("utf-8") + b"\n")
                if isinstance(session_message.message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.discard(session_message.message.id)
                    answered.pop().set()
                    answered.append(anyio.Event())

    async with anyio.create_task_group() as group:
        group.start_soon(read_lines)
        group.start_soon(write_lines)
        await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()
