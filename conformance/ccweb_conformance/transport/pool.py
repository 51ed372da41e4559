"""One connected client per source binding: made on first use, reused, replaced when broken.

Connections for bindings that will be needed later can be started in the background
(:meth:`ClientPool.prepare`), which pays off where a binding costs a new server process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.limits import no_thread_or_process

__all__ = ["ClientPool"]

Connect = Callable[[str | None], McpClient]


class ClientPool:
    """Clients by source binding (None = no binding), connected with ``connect``."""

    def __init__(self, connect: Connect, exhausted: list[str] | None = None) -> None:
        self._connect = connect
        self._exhausted = [] if exhausted is None else exhausted
        """Where a thread or process the pool could not start is noted (the run context's ``exhausted``)."""
        self._clients: dict[str | None, McpClient] = {}
        self._prepared: dict[str | None, Future[McpClient]] = {}
        self._preparer: ThreadPoolExecutor | None = None

    def prepare(self, sources: Iterable[str | None]) -> None:
        """Start connecting these bindings in the background; a failed or unused one changes nothing."""
        if self._preparer is None:
            workers = 2 * (os.cpu_count() or 1)  # start-up is mostly the server's own CPU; keep every core busy
            self._preparer = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ccweb-prepare")
        for source in dict.fromkeys(sources):
            if source not in self._clients and source not in self._prepared:
                self._prepared[source] = self._preparer.submit(self._connect, source)

    def _take_prepared(self, source: str | None) -> McpClient | None:
        future = self._prepared.pop(source, None)
        if future is None or future.cancelled():
            return None
        try:
            return future.result()
        except Exception as error:  # connect again in the foreground, which reports its own error
            if no_thread_or_process(error):  # remembered: a server lost later was lost to the limit
                self._exhausted.append(f"{type(error).__name__}: {error}")
            return None

    def client(self, source: str | None) -> McpClient:
        """The connected client for this binding, made on first use and replaced when broken."""
        if source not in self._clients and (prepared := self._take_prepared(source)) is not None:
            self._clients[source] = prepared
        cached = self._clients.get(source)
        if cached is not None and not cached.broken and not cached.closed:
            return cached
        if cached is not None:
            cached.close()
            del self._clients[source]
        client = self._connect(source)
        self._clients[source] = client
        return client

    def close(self, abort: Callable[[], None] | None = None) -> None:
        """Close every client, the prepared ones included.

        ``abort`` ends connections still being made in the background (stops their
        processes), so closing does not wait for their handshakes.
        """
        if self._preparer is not None:
            self._preparer.shutdown(wait=False, cancel_futures=True)
            if abort is not None:
                abort()
            self._preparer.shutdown(wait=True)
            self._preparer = None
        prepared, self._prepared = list(self._prepared.values()), {}
        clients, self._clients = list(self._clients.values()), {}
        for future in prepared:
            if not future.cancelled() and future.exception() is None:
                clients.append(future.result())
        for client in clients:
            client.close()
