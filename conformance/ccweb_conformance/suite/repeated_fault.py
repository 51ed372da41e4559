"""The same protocol fault, scenario after scenario: the run stops early with one verdict.

A stdio server that logs one line to stdout inside its tool breaks every scenario that calls the
tool the same way; running them all took nine times as long as a clean run and said the same
thing 169 times. As the breaker does for a server that died or timed out, ``--stop-after N``
identical protocol faults in a row stop the run: the rest is not run, and the reason names the
fault once. Only failures count (a fault the expected-failures file covers never stops a run).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ccweb_conformance.errors import ProtocolFailure, causes
from ccweb_conformance.transport.targets import VIOLATION_KINDS

__all__ = ["RepeatedFault", "protocol_fault"]

_VARYING = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}|\d+")
"""What differs between two scenarios failing the same way: conversation IDs, request ids, sizes."""
_CHAIN_LIMIT = 10


def protocol_fault(error: BaseException | None) -> str | None:
    """What the server did, for a wire-level protocol violation (``tools/call: the server wrote …``), else None.

    The target's description (``stdio server '…':``) that leads the message is left out.
    """
    for cause in causes(error, _CHAIN_LIMIT):
        if isinstance(cause, ProtocolFailure) and cause.kind in VIOLATION_KINDS:
            said = next((line.strip() for line in str(cause).splitlines() if line.strip()), "")
            request = cause.exchange.request if cause.exchange is not None else None
            method = request.get("method") if isinstance(request, dict) else None
            if isinstance(method, str) and f"{method}: " in said:
                said = method + ": " + said.split(f"{method}: ", 1)[1]
            return said
    return None


@dataclass
class RepeatedFault:
    """Counts failed scenarios in a row that broke the protocol the same way."""

    fault: str | None = None
    """The last failed scenario's fault, as said (the first of the row)."""
    in_a_row: int = 0

    def observe(self, error: BaseException | None, failed: bool) -> int:
        """Take one scenario's outcome; how many in a row (this one included) failed with its fault."""
        fault = protocol_fault(error) if failed else None
        if fault is None:
            self.fault, self.in_a_row = None, 0
        elif self.fault is not None and _masked(fault) == _masked(self.fault):
            self.in_a_row += 1
        else:
            self.fault, self.in_a_row = fault, 1
        return self.in_a_row

    def reason(self) -> str:
        """The not-run scenarios' reason: the fault, once."""
        return (
            f"not run: the implementation broke the protocol the same way in {self.in_a_row} scenarios in a row "
            f"({self.fault})"
        )


def _masked(fault: str) -> str:
    return _VARYING.sub("#", fault)
