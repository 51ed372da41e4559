"""Mutants killed by the short fuzz phase that ends every full run (its scenario in the reports).

No fixed scenario aims at these values; the phase's argument sweep (every limit, the maxChars
edges) does. The name of the scenario that kills them is the phase's own, with its defaults.
"""

from __future__ import annotations

import time
from typing import Any

from ccweb_conformance.fuzz.phase import SHORT_PHASE_COUNT
from ccweb_conformance.fuzz.report import scenario_name
from ccweb_conformance.options import default
from ccweb_reference import tool
from mutants.patching import _ORIGINAL_LIST
from mutants.registry import mutant

FUZZ_SCENARIO = scenario_name(SHORT_PHASE_COUNT, default("seed"))
HANG_SECONDS = default("timeout") + 2.0
"""Longer than the runner's per-request timeout."""


@mutant(
    "hangs_on_limit_7",
    "ARG-2",
    FUZZ_SCENARIO,
    "a call with limit 7 sleeps past the runner's timeout (a bug tied to one argument value)",
)
def _() -> None:
    def list_user_inputs(conversation_id: str, messages: Any, limit: int, max_chars: int) -> dict[str, Any]:
        if limit == 7:
            time.sleep(HANG_SECONDS)
        return _ORIGINAL_LIST(conversation_id, messages, limit, max_chars)

    tool.list_user_inputs = list_user_inputs


@mutant(
    "off_by_one_at_limit_49",
    "ARG-1",
    FUZZ_SCENARIO,
    "limit 49 is served as 48 (a bug tied to one argument value)",
)
def _() -> None:
    def list_user_inputs(conversation_id: str, messages: Any, limit: int, max_chars: int) -> dict[str, Any]:
        return _ORIGINAL_LIST(conversation_id, messages, 48 if limit == 49 else limit, max_chars)

    tool.list_user_inputs = list_user_inputs
