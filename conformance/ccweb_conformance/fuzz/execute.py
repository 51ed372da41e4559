"""Running one case: write the fixture, call the implementation, compare with the oracle."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import ccweb_spec
from ccweb_conformance.checks import oracle
from ccweb_conformance.checks.oracle import expected_answer
from ccweb_conformance.checks.outcome import tool_outcome
from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.targets import Target

TOOL_NAME = ccweb_spec.TOOL_NAME


@dataclass
class Mismatch:
    """A case the implementation answered differently from the reference core."""

    case: FuzzCase
    conversation_id: str
    expected: Any
    actual: Any
    differences: list[str] = field(default_factory=list)
    exchange: Exchange | None = None


class FuzzMismatch(AssertionError):
    """Raised inside the property so that hypothesis shrinks the case."""

    def __init__(self, mismatch: Mismatch) -> None:
        super().__init__("\n".join(mismatch.differences))
        self.mismatch = mismatch


def run_case(case: FuzzCase, target: Target, files: ConversationFiles, conversation_id: str) -> Mismatch | None:
    """The mismatch this case shows against ``target``, or None when the answers agree.

    The fixture is stored under ``conversation_id`` (fresh per case) by ``files``, which removes it after.
    """
    arguments = case.arguments(conversation_id)
    link = case.link_target(conversation_id)
    if link is None:
        files.write_bytes(conversation_id, case.file_bytes(conversation_id))
    else:
        files.make_link_text(conversation_id, link)
    expected = expected_answer(arguments, files.sessions_dir)
    wanted = {"isError": expected.is_error, "result": expected.result}
    try:
        exchange = target.client(None).call_tool(TOOL_NAME, arguments)
        outcome = tool_outcome(exchange)
    except (AssertionError, ProtocolFailure) as failure:
        sent = getattr(failure, "exchange", None)
        return Mismatch(case, conversation_id, wanted, str(failure), [str(failure).splitlines()[0]], sent)
    finally:
        files.remove_all()
    differences = oracle.differences(expected, outcome)
    if not differences:
        return None
    actual = {"isError": outcome.is_error, "result": outcome.result}
    return Mismatch(case, conversation_id, wanted, actual, differences, exchange)
