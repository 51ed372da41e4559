"""Differential fuzzing: generated conversations, answered by the implementation and by the reference core."""

from ccweb_conformance.fuzz.phase import FuzzRun, FuzzSettings, replay_command, run_fuzz, settings_for
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
