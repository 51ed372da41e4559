"""Run the conformance CLI against a reference broken only in an unusual combination.

    python tests/runner/fuzz/fuzz_mutant.py run --in-process [--fuzz N --seed S ...]

The mutant answers ``hasMore: false`` when ``limit`` equals the number of candidates and the
newest candidate is truncated; everything else is the reference's answer. The fixed scenarios
never hit that combination; the fuzzer's arguments aim at it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ccweb_conformance.cli import main
from ccweb_reference import core, tool


def mutant_list_user_inputs(
    conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int
) -> dict[str, Any]:
    """The reference's answer, with hasMore wrong in one combination."""
    result = core.list_user_inputs(conversation_id, messages, limit, max_chars)
    items = result["items"]
    if limit == len(core.candidates(messages)) and items and items[-1]["truncated"]:
        result["hasMore"] = False
    return result


if __name__ == "__main__":
    tool.list_user_inputs = mutant_list_user_inputs  # type: ignore[assignment]  # the server's tool.call_tool uses it
    sys.exit(main(sys.argv[1:]))
