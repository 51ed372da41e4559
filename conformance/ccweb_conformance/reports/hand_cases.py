"""The contract's hand-computed cases (``spec/ccweb_spec/core_cases.yaml``) as function-level export cases.

Each becomes the conversation ``c`` stored as cc-web writes it and one call with the case's
limit and budget (only those it names: the others are the defaults), expecting the result
computed by hand, never one recorded from the reference.
"""

from __future__ import annotations

from typing import Any

import ccweb_spec
from ccweb_conformance.fixtures.conversations import cc_web_session, session_bytes
from ccweb_conformance.fixtures.tree import file_content
from ccweb_conformance.reports.case_export import SESSIONS_FOLDER, RecordedCase

SOURCE = "core_cases.yaml"
"""The ``feature`` of the exported hand-computed cases, and the first part of their IDs."""
CONVERSATION_ID = "c"


def hand_cases() -> list[RecordedCase]:
    """Every hand-computed case of the contract, as a replayable case."""
    return [_case(case) for case in ccweb_spec.core_cases()]


def _case(case: dict[str, Any]) -> RecordedCase:
    path = f"{SESSIONS_FOLDER}/{CONVERSATION_ID}.json"
    stored = session_bytes(cc_web_session(CONVERSATION_ID, case["messages"]))
    arguments: dict[str, Any] = {"conversationId": CONVERSATION_ID}
    arguments.update({name: case[name] for name in ("limit", "maxChars") if name in case})
    steps: list[dict[str, Any]] = [
        {"op": "write", "path": path, **file_content(stored)},
        {"op": "call", "source": None, "arguments": arguments, "expect": {"result": case["expected"]}},
    ]
    name = case["name"]
    return RecordedCase(f"{SOURCE}::{name}", SOURCE, name, tuple(case["requirements"]), steps, None)
