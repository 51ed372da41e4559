"""The JSON Schema (2020-12) of the runner's JSON report, for the tests that validate reports against it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ccweb_conformance

SCHEMA_FILE = Path(ccweb_conformance.__file__).parent / "schemas" / "report.schema.json"


def report_schema() -> dict[str, Any]:
    """The schema, read afresh (a test may change its copy)."""
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema
