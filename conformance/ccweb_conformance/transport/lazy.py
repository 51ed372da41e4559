"""Modules imported on first use (the MCP SDK costs half a second), by one thread at a time.

Clients are made in parallel (``ClientPool.prepare``, the tests' own thread pools). Two threads
importing parts of one package at once can deadlock on its module locks or see each other's
half-initialised modules ("cannot import name 'Server' from 'mcp.server'"); one lock around every
deferred import of the transport layer rules that out. A signal that arrives during the import is
raised once it has finished: an import cut short leaves the SDK's models half built, and the
clean-up that follows would trip over them with a traceback instead of exiting 130.
"""

from __future__ import annotations

import importlib
import threading
from types import ModuleType

from ccweb_conformance.transport import signals

__all__ = ["deferred_import"]

_LOCK = threading.Lock()


def deferred_import(name: str) -> ModuleType:
    """The module ``name``, imported now if it was not, while no other deferred import runs nor a signal cuts in."""
    with signals.shielded(), _LOCK:
        return importlib.import_module(name)
