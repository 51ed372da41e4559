"""The fuzz phase as one scenario of the run, and its console lines."""

from __future__ import annotations

import json
from typing import Any

from ccweb_conformance.fuzz.execute import Mismatch
from ccweb_conformance.fuzz.phase import FuzzRun
from ccweb_conformance.fuzz.requirements import fuzzed_requirements, touched_requirements
from ccweb_conformance.reports.model import ScenarioResult

FEATURE = "Differential fuzzing"
FEATURE_FILE = "fuzz"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, indent=2)


def mismatch_text(run: FuzzRun, mismatch: Mismatch) -> str:
    """The shrunk example: differences, conversation, arguments, expected vs actual, replay command."""
    case = mismatch.case
    lines = [
        f"differential fuzzing: the implementation differs from the reference core: {mismatch.differences[0]}",
        f"found after {run.cases_run} generated conversations (seed {run.settings.seed}), "
        f"shrunk with {run.shrink_calls} further calls to this minimal example:",
        "differences:",
        *(f"  {d}" for d in mismatch.differences),
        f"conversation file ({case.storage}), messages as JSON:",
        _json(case.messages),
        "arguments:",
        _json(case.arguments(mismatch.conversation_id)),
        "expected (reference core; errors compare only the code):",
        _json(mismatch.expected),
        "actual:",
        mismatch.actual if isinstance(mismatch.actual, str) else _json(mismatch.actual),
        f"replay: {run.replay}",
    ]
    return "\n".join(lines)


def fuzz_message(run: FuzzRun) -> str | None:
    """The scenario's message: the shrunk example, the error, or None when it passed."""
    if run.error is not None:
        return f"differential fuzzing could not run: {run.error}\nreplay: {run.replay}"
    if run.mismatch is not None:
        return mismatch_text(run, run.mismatch)
    return None


def scenario_name(count: int, seed: int) -> str:
    """The fuzz phase's scenario name in every report."""
    return f"{count} generated conversations, seed {seed}"


def fuzz_scenario(run: FuzzRun) -> ScenarioResult:
    """One scenario result for every report."""
    settings = run.settings
    requirements = touched_requirements(run.mismatch.differences) if run.mismatch else fuzzed_requirements()
    transcript = [run.mismatch.exchange] if run.mismatch and run.mismatch.exchange else []
    return ScenarioResult(
        feature=FEATURE,
        feature_file=FEATURE_FILE,
        scenario=scenario_name(settings.count, settings.seed),
        line=0,
        tags=("fuzz", *requirements),
        requirements=requirements,
        level="MUST",
        status="passed" if run.passed else "failed",
        message=fuzz_message(run),
        duration_s=run.duration_s,
        transcript=transcript,
    )


def throughput_line(run: FuzzRun) -> str:
    """``fuzz: 500 cases in 9.87s (50.7 cases/s), seed 1, digest 1a2b3c4d5e6f: passed``."""
    verdict = "passed" if run.passed else "FAILED"
    limit = f", stopped at the {run.settings.time_limit:g}s time limit" if run.timed_out else ""
    sweep = f", after an argument sweep of {run.sweep_calls} calls" if run.sweep_calls else ""
    return (
        f"fuzz: {run.cases_run} cases in {run.duration_s:.2f}s ({run.throughput:.1f} cases/s), "
        f"seed {run.settings.seed}, digest {run.digest[:12]}{sweep}{limit}: {verdict}"
    )


def fuzz_console_lines(run: FuzzRun, *, verbose: bool) -> list[str]:
    """Printed after the summary: the throughput line, and the whole shrunk example on a failure."""
    lines = ["", throughput_line(run)]
    message = fuzz_message(run)
    if message is not None and not verbose:
        lines.append(message)
    return lines
