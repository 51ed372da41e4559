"""The expected answer, from the reference's own functions (the oracle); nothing restated here.

The oracle runs on private copies of the reference's modules, loaded afresh from their files,
so an in-process target whose ``ccweb_reference`` modules were patched (a mutant under test)
cannot change what is expected.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from ccweb_conformance.checks.outcome import ToolOutcome, contract_differences

_MODULES = ("core", "arguments", "beneath", "store", "tool")
"""In dependency order: each one's imports of the ones before resolve to the private copies."""


@dataclass(frozen=True)
class Expected:
    """What the contract requires: the object to compare (errors: only the code) and isError."""

    result: dict[str, Any]
    is_error: bool


@cache
def pristine_reference() -> dict[str, ModuleType]:
    """Fresh copies of ``ccweb_reference.core``, ``arguments``, ``beneath``, ``store`` and ``tool``."""
    names = [f"ccweb_reference.{name}" for name in _MODULES]
    saved = {name: sys.modules.get(name) for name in names}
    fresh: dict[str, ModuleType] = {}
    try:
        for short, name in zip(_MODULES, names, strict=True):
            spec = importlib.util.find_spec(name)
            assert spec is not None and spec.loader is not None and spec.origin is not None, name
            copy_spec = importlib.util.spec_from_file_location(name, Path(spec.origin))
            assert copy_spec is not None and copy_spec.loader is not None, name
            module = importlib.util.module_from_spec(copy_spec)
            sys.modules[name] = module
            copy_spec.loader.exec_module(module)
            fresh[short] = module
    finally:
        for name, previous in saved.items():
            if previous is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = previous
    # The oracle decodes files with json.loads alone: fuzzing then also checks the reference's
    # typed fast path (ccweb_reference.decode) against the contract's generic reading.
    setattr(fresh["store"], "typed_messages", lambda data: None)  # noqa: B010 (the copy's own import)
    return fresh


def expected_answer(arguments: Mapping[str, Any], sessions_dir: Path) -> Expected:
    """The reference core's answer for these arguments on the files in ``sessions_dir`` (no source bound)."""
    reference = pristine_reference()
    core = reference["core"]
    try:
        parsed = reference["arguments"].parse_arguments(arguments)
        conversation_id = reference["tool"].target_conversation(parsed.conversation_id, None)
        messages = reference["store"].SessionStore(sessions_dir).read_messages(conversation_id)
        return Expected(core.list_user_inputs(conversation_id, messages, parsed.limit, parsed.max_chars), False)
    except core.ToolError as error:
        return Expected({"ok": False, "error": {"code": error.code}}, True)


def differences(expected: Expected, outcome: ToolOutcome) -> list[str]:
    """Where a reply differs from the expected answer (empty: it agrees): ``isError`` first, then the contract's fields.

    The one comparison with the oracle: the fuzz phase and the profile both judge calls with it.
    """
    found = contract_differences(expected.result, outcome.result)
    if outcome.is_error != expected.is_error:
        found.insert(0, f"isError: expected {json.dumps(expected.is_error)}, got {json.dumps(outcome.is_error)}")
    return found
