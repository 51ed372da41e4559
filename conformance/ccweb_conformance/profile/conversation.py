"""Realistic cc-web conversations of any size, written byte for byte as cc-web writes them.

Alternating user and assistant messages in mixed English, Chinese and emoji; assistant
messages carry ``toolCalls``. The benchmark (``bench/bench_reference.py``) and the profile
share this generator, so their figures are about the same files.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ccweb_conformance.fixtures.conversations import cc_web_session

PROSE = (
    "fix the failing test in the parser please and keep the public API stable, then run the whole suite again "
    "用户 要求 所有 修改 都 要 有 测试 😀 check the migration, the README and the changelog before you sign off"
)
WORDS = tuple(PROSE.split(" "))
REVISION_WIDTH = 4
"""Digits of the revision marker: every revision of a file has the same size."""


def _text(rng: random.Random, low: int, high: int) -> str:
    size = rng.randint(low, high)
    words: list[str] = []
    total = 0
    while total < size:
        word = rng.choice(WORDS)
        words.append(word)
        total += len(word) + 1
    return " ".join(words)


def messages(count: int, seed: int = 0) -> list[dict[str, Any]]:
    """``count`` stored messages: users at even positions, assistants with one tool call at odd ones."""
    rng = random.Random(seed)
    stored: list[dict[str, Any]] = []
    for index in range(count):
        stamp = f"2026-11-30T{9 + index // 360000 % 10:02d}:{index // 6000 % 60:02d}:{index // 100 % 60:02d}.000Z"
        if index % 2 == 0:
            stored.append({"role": "user", "content": _text(rng, 50, 240), "timestamp": stamp})
        else:
            call = {
                "id": f"toolu_{index:08d}",
                "name": rng.choice(("Bash", "Read", "Edit")),
                "input": {"command": _text(rng, 20, 60), "description": _text(rng, 10, 40)},
                "result": _text(rng, 170, 520),
            }
            stored.append(
                {"role": "assistant", "content": _text(rng, 90, 330), "timestamp": stamp, "toolCalls": [call]}
            )
    return stored


def conversation(count: int, conversation_id: str, seed: int = 0) -> dict[str, Any]:
    """A cc-web session object holding ``count`` generated messages."""
    return cc_web_session(conversation_id, messages(count, seed))


def cc_web_bytes(session: dict[str, Any]) -> bytes:
    """A session as cc-web writes it (``JSON.stringify(session, null, 2)``): two-space indent, raw UTF-8."""
    return json.dumps(session, indent=2, ensure_ascii=False).encode("utf-8")


def revision_marker(revision: int) -> str:
    """The text that tells one revision of a profile conversation from another."""
    return f"[profile revision {revision:0{REVISION_WIDTH}d}]"


def revisable_bytes(count: int, conversation_id: str, seed: int = 0) -> bytes:
    """The file of a profile conversation at revision 0: its newest user message ends with the marker."""
    session = conversation(count, conversation_id, seed)
    users = [message for message in session["messages"] if message["role"] == "user"]
    if users:
        users[-1]["content"] += f" {revision_marker(0)}"
    return cc_web_bytes(session)


def at_revision(revision_zero: bytes, revision: int) -> bytes:
    """The same file at another revision: the newest user input changes, the size does not."""
    if not 0 <= revision < 10**REVISION_WIDTH:
        raise ValueError(f"revision {revision} is out of range")
    return revision_zero.replace(revision_marker(0).encode(), revision_marker(revision).encode(), 1)
