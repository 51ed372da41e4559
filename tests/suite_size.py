"""How many scenarios the suite runs: every scenario, each example row of an outline counted once."""

from __future__ import annotations

import os
import sys
from importlib.resources import files

from pytest_bdd.feature import get_features


def count_scenarios() -> int:
    """Scenarios in ``ccweb_features``, outlines expanded."""
    features = get_features([str(files("ccweb_features"))])
    return sum(
        max(1, sum(len(examples.examples) for examples in scenario.examples))
        for feature in features
        for scenario in feature.scenarios.values()
    )


def count_http_only() -> int:
    """Scenarios that only HTTP can run (a source header that changes within one session): skipped elsewhere."""
    features = get_features([str(files("ccweb_features"))])
    return sum(
        any(step.name.startswith("on one HTTP session") for step in scenario.steps)
        for feature in features
        for scenario in feature.scenarios.values()
    )


def count_with_step(*starts: str) -> int:
    """Scenarios with a step whose text starts with one of ``starts``."""
    features = get_features([str(files("ccweb_features"))])
    return sum(
        any(step.name.startswith(starts) for step in scenario.steps)
        for feature in features
        for scenario in feature.scenarios.values()
    )


SCENARIOS = count_scenarios()
HTTP_ONLY = count_http_only()
NOT_IN_PROCESS = count_with_step("the server exits within")
"""Scenarios that need a server process of their own (an exit at the end of stdin): skipped in process."""
NOT_OVER_HTTP = NOT_IN_PROCESS + count_with_step("I call the tool with no arguments and cancel")
"""Scenarios of stdio's own rules (an exit at the end of stdin, a cancellation by notification): skipped over HTTP."""
RUN_CHECKS = 2
"""What a full run reports beside the scenarios: the RO-2 audit of the sessions directory and the short fuzz phase."""
ROOT_SKIPS = 1 if hasattr(os, "geteuid") and os.geteuid() == 0 else 0
"""Scenarios a root runner skips (never passes) in process and over HTTP: root reads a file without read
permission. Over stdio it runs them against servers started without that power (Linux), so none is skipped."""
STDIO_ROOT_SKIPS = ROOT_SKIPS if not sys.platform.startswith("linux") else 0
ALL_PASSED_HTTP = {
    "total": SCENARIOS + RUN_CHECKS,
    "passed": SCENARIOS + RUN_CHECKS - ROOT_SKIPS - NOT_OVER_HTTP,
    "failed": 0,
    "warning": 0,
    "xfailed": 0,
    "xpassed": 0,
    "skipped": ROOT_SKIPS + NOT_OVER_HTTP,
    "notrun": 0,
}
"""The JSON report's counts when every scenario of a full run (no selection, no --fuzz 0) passed over HTTP."""
ALL_PASSED = {
    **ALL_PASSED_HTTP,
    "passed": SCENARIOS + RUN_CHECKS - HTTP_ONLY - ROOT_SKIPS - NOT_IN_PROCESS,
    "skipped": HTTP_ONLY + ROOT_SKIPS + NOT_IN_PROCESS,
}
"""The same in process, where the HTTP-only scenarios and those that need a process of their own are skipped."""
ALL_PASSED_STDIO = {
    **ALL_PASSED,
    "passed": SCENARIOS + RUN_CHECKS - HTTP_ONLY - STDIO_ROOT_SKIPS,
    "skipped": HTTP_ONLY + STDIO_ROOT_SKIPS,
}
"""The same over stdio: as root on Linux, the permission scenario runs too (servers without CAP_DAC_OVERRIDE)."""
