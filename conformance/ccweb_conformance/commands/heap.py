"""The garbage collector around a run: no collection while its modules import, and what they made left out after.

A run imports its engine, the MCP SDK's models and the contract's data before its first scenario: objects that
live as long as the process, none of them garbage. The collector would walk them again and again, while they
import and at every full collection of the run. :func:`importing` keeps it off while they import;
:func:`frozen` (around the whole command: ``cli.py``'s dispatch) moves everything alive into the collector's
permanent generation while the command runs, and ``importing(freeze=True)`` what the imports made, before the
collector is back on; so a collection walks only what the run made since (the run's own garbage is collected as
before).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def importing(*, freeze: bool = False) -> Iterator[None]:
    """No garbage collection inside; the collector as it was afterwards, however the block ends.

    ``freeze`` (inside a :func:`frozen` block, which undoes it): what was made so far is left out of collections
    before the collector is back on. Objects made while it was off all count as young: without the freeze, the
    first collection after the block walks everything the imports made, modules and models that are never garbage.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            freeze_more()
        if enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """Everything alive now left out of collections inside; left in again when the block ends, however it ends."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def freeze_more() -> None:
    """Inside a :func:`frozen` block: what was made since it began left out of collections too, until it ends.
    No nesting is counted: ``gc.get_freeze_count`` walks every frozen object."""
    gc.freeze()
