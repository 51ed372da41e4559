"""Differential fuzzing: generated conversations, answered by the implementation and by the reference core.

The settings (:mod:`.settings`) import no Hypothesis; the phase and its report are imported on
first use, so a run that fuzzes nothing never loads Hypothesis.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ccweb_conformance.fuzz.settings import FuzzSettings, settings_for

if TYPE_CHECKING:
    from ccweb_conformance.fuzz.phase import FuzzRun, replay_command, run_fuzz
    from ccweb_conformance.fuzz.report import fuzz_console_lines, fuzz_scenario, throughput_line

__all__ = [
    "FuzzRun",
    "FuzzSettings",
    "fuzz_console_lines",
    "fuzz_scenario",
    "replay_command",
    "run_fuzz",
    "settings_for",
    "throughput_line",
]

_LAZY = {
    "FuzzRun": "phase",
    "replay_command": "phase",
    "run_fuzz": "phase",
    "fuzz_console_lines": "report",
    "fuzz_scenario": "report",
    "throughput_line": "report",
}


def __getattr__(name: str) -> Any:
    """The phase's and the report's names, imported (with Hypothesis) when first asked for."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
