"""MCP over stdin/stdout, one JSON-RPC message per line.

The SDK's ``stdio_server`` writes with pydantic's JSON writer, which raises on lone
surrogates (D-3), and reads with pydantic's JSON parser, which rejects a ``\\ud800``
escape, so such a request would never be answered. This transport is the same loop with
:mod:`ccweb_reference.wire` as the writer and :func:`json.loads` as the parser. A line
that is not a JSON-RPC message is handed to the SDK's loop as an error, as the SDK does.

Calls run on worker threads, so a request can still be in flight when stdin closes (``echo
REQUEST | ccweb-reference``): the loop ends only once every request read has been answered,
or :data:`DRAIN_S` after stdin closed.
"""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

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


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` until stdin closes."""
    with open(sys.stdin.fileno(), encoding="utf-8", errors="surrogateescape", closefd=False) as raw_stdin:
        await _serve(server, anyio.wrap_file(raw_stdin), sys.stdout.buffer)


async def _serve(server: Server[Any], stdin: anyio.AsyncFile[str], stdout: BinaryIO) -> None:
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    pending: set[types.RequestId] = set()
    answered = [anyio.Event()]  # set, and replaced, whenever an answer is written

    async def read_lines() -> None:
        async with read_writer:
            async for line in stdin:
                if not line.strip():
                    continue
                try:
                    message = parse_message(line)
                except Exception as exc:  # a malformed line: the loop answers it
                    await read_writer.send(exc)
                    continue
                if isinstance(message, types.JSONRPCRequest):
                    pending.add(message.id)
                await read_writer.send(SessionMessage(message))
            with anyio.move_on_after(DRAIN_S):
                while pending:
                    await answered[0].wait()

    async def write_lines() -> None:
        async with write_reader:
            async for session_message in write_reader:
                data = session_message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                stdout.write(wire.dumps(data).encode("utf-8") + b"\n")
                stdout.flush()
                if isinstance(session_message.message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.discard(session_message.message.id)
                    answered.pop().set()
                    answered.append(anyio.Event())

    async with anyio.create_task_group() as group:
        group.start_soon(read_lines)
        group.start_soon(write_lines)
        await server.run(read_stream, write_stream, server.create_initialization_options())
        group.cancel_scope.cancel()
