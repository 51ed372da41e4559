"""The argument sweep that opens every fuzz phase: each limit, and maxChars at its edges.

Generated cases hit any one argument value only by chance; a bug tied to one value (a hang
at ``limit == 7``) needs every value of ``limit`` tried once. The bounds come from the input
schema; the conversation mixes messages with a timestamp, with only createdAt, and with
neither, the metadata bugs were found in before.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import ccweb_spec
from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.fuzz.strategies import budget_edges

MESSAGES = 52
"""User messages in the sweep's conversation: more than the largest limit."""


def _message(number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "user", "content": f"input {number}"}
    if number % 3 == 0:
        message["timestamp"] = f"2026-11-30T09:{number % 60:02d}:00.000Z"
    elif number % 3 == 1:
        message["createdAt"] = f"2026-11-30T10:{number % 60:02d}:00.000Z"
    if number % 4 == 0:
        message["id"] = f"msg-{number}"
    return message


def _conversation() -> list[Any]:
    messages: list[Any] = []
    for number in range(1, MESSAGES + 1):
        messages += [_message(number), {"role": "assistant", "content": f"reply {number}", "timestamp": None}]
    return messages


def _bounds(name: str) -> tuple[int, int]:
    schema = ccweb_spec.schema("input")["properties"][name]
    return int(schema["minimum"]), int(schema["maximum"])


@cache
def sweep_cases() -> tuple[FuzzCase, ...]:
    """Every limit in bounds, then maxChars at its bounds and around the newest messages' sizes."""
    messages = _conversation()
    low, high = _bounds("limit")
    cases = [FuzzCase(messages=messages, storage="pretty", limit=n) for n in range(low, high + 1)]
    low, high = _bounds("maxChars")
    edges = sorted({low, low + 1, high - 1, high, *(s for s in budget_edges(messages) if low <= s <= high)})
    cases += [FuzzCase(messages=messages, storage="pretty", max_chars=n) for n in edges]
    return tuple(cases)
