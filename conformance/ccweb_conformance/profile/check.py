"""Every profiled call is checked: its result against the reference core's (the fuzzer's oracle)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ccweb_conformance.checks import oracle
from ccweb_conformance.checks.oracle import Expected, expected_answer
from ccweb_conformance.checks.outcome import tool_outcome
from ccweb_conformance.transport.exchange import Exchange

MAX_DIFFERENCES = 5


class Oracle:
    """Expected answers for the files in one sessions directory, remembered per revision."""

    def __init__(self, sessions_dir: Path) -> None:
        self.sessions_dir = sessions_dir
        self._known: dict[tuple[str, int], Expected] = {}

    def expected(self, conversation_id: str, revision: int) -> Expected:
        """The reference core's answer on the file as it is now, which holds ``revision``."""
        key = (conversation_id, revision)
        if key not in self._known:
            self._known[key] = expected_answer(arguments(conversation_id), self.sessions_dir)
        return self._known[key]

    def forget(self) -> None:
        """Drop what is remembered (the next size's files replace these)."""
        self._known.clear()


def arguments(conversation_id: str) -> dict[str, Any]:
    """The arguments of every profiled call: an explicit conversation, the default limit and budget."""
    return {"conversationId": conversation_id}


def differences(exchange: Exchange, expected: Expected) -> list[str]:
    """Where the reply differs from the expected answer (empty: right), at most a few lines."""
    try:
        outcome = tool_outcome(exchange)
    except AssertionError as failure:
        return [str(failure).splitlines()[0]]
    found = oracle.differences(expected, outcome)
    if len(found) > MAX_DIFFERENCES:
        found = [*found[:MAX_DIFFERENCES], f"... and {len(found) - MAX_DIFFERENCES} more differences"]
    return found
