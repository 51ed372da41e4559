"""Mutants killed by the short fuzz phase that ends every full run (its scenario in the reports).

No fixed scenario aims at these values; the phase's argument sweep (every limit, the maxChars
edges) or its generated cases do. The name of the scenario that kills them is the phase's own,
with its defaults. ``utf16_past_64_chars`` and ``off_by_one_at_limit_49`` are also run at 70 ms a
call by ``tests/runner/fuzz/test_fuzz_bounds.py``: the default phase still catches them.
"""

from __future__ import annotations

import time
from typing import Any

from ccweb_conformance.checks.mistakes import UNITS, Walk
from ccweb_conformance.fuzz.report import scenario_name
from ccweb_conformance.options import RunnerOptions
from ccweb_reference import tool
from mutants.patching import _ORIGINAL_LIST, _filter_incoming, walked
from mutants.registry import mutant

FUZZ_SCENARIO = scenario_name(RunnerOptions().seed)
HANG_SECONDS = RunnerOptions().timeout + 2.0
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


def limit_49_as_48(conversation_id: str, messages: Any, limit: int, max_chars: int) -> dict[str, Any]:
    """The reference, except that limit 49 is served as 48."""
    return _ORIGINAL_LIST(conversation_id, messages, 48 if limit == 49 else limit, max_chars)


@mutant(
    "off_by_one_at_limit_49",
    "ARG-1",
    FUZZ_SCENARIO,
    "limit 49 is served as 48 (a bug tied to one argument value)",
)
def _() -> None:
    tool.list_user_inputs = limit_49_as_48


FAST_PATH = 64
"""Code points past which the UTF-16 mutant counts with ``String.length``."""


_UTF16_LENGTH, _UTF16_CUT = UNITS["utf16"]


def _fast_len(text: str) -> int:
    return _UTF16_LENGTH(text) if len(text) > FAST_PATH else len(text)


def _fast_cut(text: str, n: int) -> str:
    return _UTF16_CUT(text, n) if len(text) > FAST_PATH else text[:n]


utf16_past_64_chars = walked(Walk(unit=(_fast_len, _fast_cut)))
"""The reference's walk, with lengths and cuts in UTF-16 units for contents past 64 code points."""


@mutant(
    "utf16_past_64_chars",
    "UNI-1",
    FUZZ_SCENARIO,
    "contents past 64 code points are counted and cut in UTF-16 units (a 'fast path' with String.length);"
    " shorter ones in code points, as every fixed scenario's are",
)
def _() -> None:
    tool.list_user_inputs = utf16_past_64_chars


RUNNER_NAME = "ccweb-conformance"
_LAST_CLIENT = {"name": RUNNER_NAME}
"""The clientInfo name of the latest initialize, or of the latest request that carried one in _meta."""


def _client_name(item: Any) -> Any:
    import mcp_types as types  # noqa: PLC0415

    message = getattr(item, "message", None)
    if isinstance(message, types.JSONRPCRequest) and isinstance(message.params, dict):
        meta = message.params.get("_meta")
        info = message.params.get("clientInfo") if message.method == "initialize" else None
        if info is None and isinstance(meta, dict):
            info = meta.get(types.CLIENT_INFO_META_KEY)
        if isinstance(info, dict) and isinstance(info.get("name"), str):
            _LAST_CLIENT["name"] = info["name"]
    return item


@mutant(
    "correct_only_for_the_runners_client_name",
    "RES-2",
    FUZZ_SCENARIO,
    "correct only when clientInfo.name is ccweb-conformance; any other client gets the newest item"
    " twice (a server that recognises the test kit)",
)
def _() -> None:
    def list_user_inputs(conversation_id: str, messages: Any, limit: int, max_chars: int) -> dict[str, Any]:
        result = _ORIGINAL_LIST(conversation_id, messages, limit, max_chars)
        if _LAST_CLIENT["name"] != RUNNER_NAME and result["items"]:
            result["items"].append(dict(result["items"][-1]))
        return result

    _filter_incoming(_client_name)
    tool.list_user_inputs = list_user_inputs
