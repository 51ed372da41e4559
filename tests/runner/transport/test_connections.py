"""The run's HTTP connections: the signal that stops the run shuts them, and a read waiting on one ends."""

from __future__ import annotations

import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.transport import signals
from ccweb_conformance.transport.connections import OpenConnections
from ccweb_conformance.transport.run_context import RunContext

BOUND = 30.0
"""Seconds a thread may take to end once woken (a guard against a hang, not a speed check)."""


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    ours, theirs = socket.socketpair()
    try:
        yield ours, theirs
    finally:
        ours.close()
        theirs.close()


def _reading(sock: socket.socket) -> tuple[threading.Thread, list[bytes]]:
    """A thread blocked reading ``sock`` (the peer never writes), and what it read once it ended."""
    read: list[bytes] = []
    thread = threading.Thread(target=lambda: read.append(sock.recv(1)), daemon=True)
    thread.start()
    return thread, read


def test_shut_all_ends_a_read_another_thread_waits_in(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, _ = pair
    connections = OpenConnections()
    connections.adopt(ours)
    thread, read = _reading(ours)
    connections.shut_all()
    thread.join(BOUND)
    assert (thread.is_alive(), read, connections.shut) == (False, [b""], True)


def test_a_connection_opened_after_the_signal_is_shut_as_it_opens(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, _ = pair
    connections = OpenConnections()
    connections.shut_all()
    connections.adopt(ours)
    assert ours.recv(1) == b""


def test_closed_sockets_are_forgotten_and_never_shut_again(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = pair
    connections = OpenConnections()
    connections.adopt(theirs)
    theirs.close()
    connections.adopt(ours)
    connections.shut_all()
    assert ours.recv(1) == b""


def test_a_pause_ends_once_the_connections_are_shut() -> None:
    connections = OpenConnections()
    thread = threading.Thread(target=connections.pause, args=(3600.0,), daemon=True)
    thread.start()
    connections.shut_all()
    thread.join(BOUND)
    assert thread.is_alive() is False


def test_the_signal_that_stops_a_run_shuts_its_connections(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, _ = pair
    context = RunContext()
    context.connections.adopt(ours)
    thread, read = _reading(ours)
    with pytest.raises(RunInterrupted), signals.interrupts(context.interrupt):
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)  # this thread, not the reader
        time.sleep(1)  # the handler raises first
    thread.join(BOUND)
    assert (thread.is_alive(), read, context.interrupt.name) == (False, [b""], "SIGTERM")


def test_a_signal_once_the_run_is_disarmed_shuts_nothing(pair: tuple[socket.socket, socket.socket]) -> None:
    ours, theirs = pair
    context = RunContext()
    context.connections.adopt(ours)
    with signals.interrupts(context.interrupt):
        context.interrupt.disarm()
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGTERM)
        time.sleep(0.05)
    theirs.sendall(b"x")
    assert (ours.recv(1), context.connections.shut, context.interrupt.name) == (b"x", False, "SIGTERM")
