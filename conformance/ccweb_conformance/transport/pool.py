"""One connected client per source binding and lane: made on first use, reused, replaced when broken.

A binding's lane 0 is the connection every scenario of it uses; scenarios that run together (``--jobs``) and
share a binding (none, or the shared decoy) each take a lane of their own: another connection (over stdio,
another server process).

Connections for bindings that will be needed later can be started in the background
(:meth:`ClientPool.prepare`), which pays off where a binding costs a new server process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.limits import no_thread_or_process

__all__ = ["ClientPool"]

Connect = Callable[[str | None], McpClient]
Key = tuple[str | None, int]
"""A binding and its lane: lane 0 is the binding's first connection, others serve scenarios run together."""


class ClientPool:
    """Clients by source binding (None = no binding), connected with ``connect``.

    Thread-safe: scenarios run together (``--jobs``) ask for their own bindings at once; one binding's
    client is made and handed out by one thread at a time."""

    def __init__(self, connect: Connect, exhausted: list[str] | None = None) -> None:
        self._connect = connect
        self._exhausted = [] if exhausted is None else exhausted
        """Where a thread or process the pool could not start is noted (the run context's ``exhausted``)."""
        self._clients: dict[Key, McpClient] = {}
        self._prepared: dict[Key, Future[McpClient]] = {}
        self._preparer: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        """Guards the dictionaries and ``_bindings``."""
        self._bindings: dict[Key, threading.Lock] = {}
        """One lock per binding, held while its client is found or made."""

    def prepare(self, sources: Iterable[str | None], lane: int = 0) -> None:
        """Start connecting these bindings (in ``lane``) in the background; a failed or unused one changes nothing."""
        with self._lock:
            if self._preparer is None:
                workers = 2 * (os.cpu_count() or 1)  # start-up is mostly the server's own CPU; keep every core busy
                self._preparer = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ccweb-prepare")
            for source in dict.fromkeys(sources):
                key = (source, lane)
                if key not in self._clients and key not in self._prepared:
                    self._prepared[key] = self._preparer.submit(self._connect, source)

    def _take_prepared(self, key: Key) -> McpClient | None:
        with self._lock:
            future = self._prepared.pop(key, None)
        if future is None or future.cancelled():
            return None
        try:
            return future.result()
        except Exception as error:  # connect again in the foreground, which reports its own error
            if no_thread_or_process(error):  # remembered: a server lost later was lost to the limit
                self._exhausted.append(f"{type(error).__name__}: {error}")
            return None

    def client(self, source: str | None, lane: int = 0) -> McpClient:
        """The connected client for this binding in ``lane``, made on first use and replaced when broken."""
        key = (source, lane)
        with self._lock:
            binding = self._bindings.setdefault(key, threading.Lock())
        with binding:
            if key not in self._clients and (prepared := self._take_prepared(key)) is not None:
                self._clients[key] = prepared
            cached = self._clients.get(key)
            if cached is not None and not cached.broken and not cached.closed:
                return cached
            if cached is not None:
                cached.close()
                del self._clients[key]
            client = self._connect(source)
            self._clients[key] = client
            return client

    def close(self, abort: Callable[[], None] | None = None) -> None:
        """Close every client, the prepared ones included.

        ``abort`` ends connections still being made in the background (stops their
        processes), so closing does not wait for their handshakes.
        """
        with self._lock:
            preparer, self._preparer = self._preparer, None
        if preparer is not None:
            preparer.shutdown(wait=False, cancel_futures=True)
            if abort is not None:
                abort()
            preparer.shutdown(wait=True)
        with self._lock:
            prepared, self._prepared = list(self._prepared.values()), {}
            clients, self._clients = list(self._clients.values()), {}
        for future in prepared:
            if not future.cancelled() and future.exception() is None:
                clients.append(future.result())
        for client in clients:
            client.close()
