"""The garbage collector around a run: no collection while its modules import, and what they made left out after.

A run imports its engine, the MCP SDK's models and the contract's data before its first scenario: objects that
live as long as the process, none of them garbage. The collector would walk them again and again, while they
import and at every full collection of the run. :func:`importing` keeps it off while they import;
:func:`frozen` moves everything alive into the collector's permanent generation for the run, so a collection
walks only what the run made since (the run's own garbage is collected as before).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def importing() -> Iterator[None]:
    """No garbage collection inside; the collector as it was afterwards, however the block ends."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Everything alive now left out of collections inside; left in again when the outermost such block ends.

    A block inside another freezes what was made since the outer one began (the fuzz phase: the suite's
    objects) and leaves the outer one's standing.
    """
    outermost = gc.get_freeze_count() == 0
    gc.freeze()
    try:
        yield
    finally:
        if outermost:
            gc.unfreeze()
