"""The protocol revisions the runner offers and accepts, and how it names itself: shared by client and negotiate."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

from ccweb_conformance import kit_version

MODERN_VERSION: Final = "2026-07-28"
LEGACY_OFFER: Final = "2025-11-25"
LEGACY_ACCEPTED: Final = ("2025-03-26", "2025-06-18", "2025-11-25")
CLIENT_INFO: Final = {"name": "ccweb-conformance", "version": kit_version()}

_THREAD = threading.local()


def client_info() -> dict[str, Any]:
    """How the runner names itself now: :data:`CLIENT_INFO`, with this thread's name where one is set."""
    name = getattr(_THREAD, "name", None)
    return dict(CLIENT_INFO) if name is None else {**CLIENT_INFO, "name": name}


@contextmanager
def thread_client_name(name: str) -> Iterator[None]:
    """Clients this thread makes inside introduce themselves as ``name`` (other threads keep theirs)."""
    before = getattr(_THREAD, "name", None)
    _THREAD.name = name
    try:
        yield
    finally:
        _THREAD.name = before
