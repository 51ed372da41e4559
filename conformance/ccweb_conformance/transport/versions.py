"""The protocol revisions the runner offers and accepts, and how it names itself: shared by client and negotiate."""

from __future__ import annotations

from typing import Final

from ccweb_conformance import kit_version

MODERN_VERSION: Final = "2026-07-28"
LEGACY_OFFER: Final = "2025-11-25"
LEGACY_ACCEPTED: Final = ("2025-03-26", "2025-06-18", "2025-11-25")
CLIENT_INFO: Final = {"name": "ccweb-conformance", "version": kit_version()}
