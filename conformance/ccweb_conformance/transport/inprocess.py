"""The reference server in a background thread, spoken to in raw JSON text lines."""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.message import SessionMessage

from ccweb_conformance.transport.lines import LineIO
from ccweb_conformance.transport.sdk_types import types
from ccweb_reference import wire
from ccweb_reference.server import Binding, build_server
from ccweb_reference.store import SessionStore

JOIN_TIMEOUT = 5.0


class InProcessLineIO(LineIO):
    """Lines in, lines out; the server loop mirrors ccweb_reference.stdio."""

    def __init__(self, sessions_dir: Path, source: str | None) -> None:
        self._inbound: queue.Queue[str | None] = queue.Queue()
        self._outbound: queue.Queue[bytes | None] = queue.Queue()
        self._server = build_server(SessionStore(sessions_dir), Binding(fixed_source=source))
        self._error: BaseException | None = None
        self._eof = False
        self._thread = threading.Thread(target=self._run, name="ccweb-reference-in-process", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            anyio.run(self._serve)
        except BaseException as exc:
            self._error = exc
        finally:
            self._outbound.put(None)

    async def _serve(self) -> None:
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

        async def read_lines() -> None:
            async with read_writer:
                while (line := await anyio.to_thread.run_sync(self._inbound.get)) is not None:
                    if not line.strip():
                        continue
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except Exception as exc:  # a malformed line: the server loop answers it
                        await read_writer.send(exc)
                        continue
                    await read_writer.send(SessionMessage(message))

        async def write_lines() -> None:
            async with write_reader:
                async for session_message in write_reader:
                    data: Any = session_message.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                    self._outbound.put(wire.dumps(data).encode("utf-8") + b"\n")

        async with anyio.create_task_group() as group:
            group.start_soon(read_lines)
            group.start_soon(write_lines)
            await self._server.run(read_stream, write_stream, self._server.create_initialization_options())
            group.cancel_scope.cancel()

    def write_line(self, text: str) -> None:
        if not self._thread.is_alive():
            raise BrokenPipeError("the in-process server has stopped")
        self._inbound.put(text)

    def read_line(self, timeout: float) -> bytes | None:
        if self._eof:
            return None
        try:
            line = self._outbound.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError from None
        if line is None:
            self._eof = True
        return line

    def exit_status(self, wait: float = 0.0) -> str | None:
        self._thread.join(wait)
        if self._thread.is_alive():
            return None
        return "stopped" if self._error is None else f"stopped with {self._error!r}"

    def stderr_tail(self, lines: int = 20) -> str:
        return ""

    def close(self) -> None:
        self._inbound.put(None)
        self._thread.join(JOIN_TIMEOUT)
