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
import importlib.machinery
import importlib.util
import sys
import threading
from types import ModuleType

from ccweb_conformance.transport import signals

__all__ = ["deferred_import", "submodule_alone"]

_LOCK = threading.Lock()


def deferred_import(name: str) -> ModuleType:
    """The module ``name``, imported now if it was not, while no other deferred import runs nor a signal cuts in."""
    with signals.shielded(), _LOCK:
        return importlib.import_module(name)


def submodule_alone(name: str) -> ModuleType:
    """The submodule ``name`` of a top-level package, imported without the package's ``__init__`` when that has not
    run (for an extension that needs nothing of its package: the ``__init__`` of watchfiles imports anyio and
    multiprocessing for APIs the runner does not use). It is registered under its own name, so the package, when
    something imports it later, finds and uses it; imported as :func:`deferred_import` imports."""
    with signals.shielded(), _LOCK:
        package = name.rpartition(".")[0]
        if name in sys.modules or package in sys.modules or "." in package:
            return importlib.import_module(name)
        found = importlib.util.find_spec(package)
        if found is None:
            raise ModuleNotFoundError(f"No module named {package!r}", name=package)
        locations = found.submodule_search_locations
        spec = importlib.machinery.PathFinder.find_spec(name, list(locations)) if locations else None
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        return module
