"""The sockets of one run's HTTP connections, shut at once when a signal stops the run.

A read blocked in another thread is not woken when its socket is closed (Linux keeps the file open until the
read returns), and a server the run did not start (``--url``) cannot be stopped to end it. ``shutdown`` wakes it:
the read returns the end of the stream at once. :meth:`OpenConnections.shut_all` is called from the signal
handler (``signals.InterruptState.hang_ups``), wherever the main thread is, so it takes no lock: each of its
steps is one operation of a built-in set or one system call. A connection opened after it is shut as it opens.
"""

from __future__ import annotations

import contextlib
import socket
import time

__all__ = ["PAUSE_SLICE_S", "OpenConnections"]

PAUSE_SLICE_S = 0.05
"""Seconds a pause sleeps between looks at whether the run's connections were shut."""


class OpenConnections:
    """The run's HTTP sockets (``adopt``), shut all at once (``shut_all``), then each one as it is adopted."""

    def __init__(self) -> None:
        self._sockets: set[socket.socket] = set()
        self.shut = False
        """True once :meth:`shut_all` ran: every later connection is shut as it opens."""

    def adopt(self, sock: socket.socket) -> None:
        """A connection just opened: shut by :meth:`shut_all`, or now when that ran already."""
        self._sockets.difference_update([known for known in list(self._sockets) if known.fileno() < 0])
        self._sockets.add(sock)
        if self.shut:  # after the add: a shut_all that did not see it has set the flag first
            _shut(sock)

    def shut_all(self) -> None:
        """Shut every adopted socket: a read on it ends now (no lock taken: a signal handler calls this)."""
        self.shut = True
        for sock in list(self._sockets):
            _shut(sock)

    def pause(self, seconds: float) -> None:
        """Sleep ``seconds``, less once the connections were shut (a look every PAUSE_SLICE_S)."""
        end = time.monotonic() + seconds
        while not self.shut and (left := end - time.monotonic()) > 0:
            time.sleep(min(left, PAUSE_SLICE_S))


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # closed already, or never connected
        sock.shutdown(socket.SHUT_RDWR)
