"""Where things are, for tests in any folder under ``tests/``."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
"""The ``tests/`` folder (on ``sys.path`` through pyproject's ``pythonpath``)."""
REPO = TESTS.parent
"""The checkout's root."""
