"""The fuzz phase as one scenario of the run, and its console lines.

The console lines follow the run's language (``fuzz.*`` in ``locales/``); the scenario's
message, which goes into the JUnit, JSON and Cucumber reports, stays English.
"""

from __future__ import annotations

import json
from typing import Any

from ccweb_conformance.fuzz.execute import Mismatch
from ccweb_conformance.fuzz.phase import FuzzRun
from ccweb_conformance.fuzz.requirements import fuzzed_requirements, mismatch_requirements
from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages
from ccweb_conformance.reports.model import ScenarioResult
from ccweb_conformance.reports.neutral import neutralise

FEATURE = "Differential fuzzing"
FEATURE_FILE = "fuzz"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, indent=2)


def mismatch_text(run: FuzzRun, mismatch: Mismatch, say: Messages) -> str:
    """The shrunk example: differences, conversation, arguments, expected vs actual, replay command."""
    case = mismatch.case
    lines = [
        say("fuzz.differs", difference=mismatch.differences[0]),
        say("fuzz.found_after", cases=run.cases_run, seed=run.settings.seed, calls=run.shrink_calls),
        say("fuzz.differences"),
        *(f"  {d}" for d in mismatch.differences),
        say("fuzz.conversation", storage=case.storage),
        _json(case.messages),
        say("fuzz.arguments"),
        _json(case.arguments(mismatch.conversation_id)),
        say("fuzz.expected"),
        _json(mismatch.expected),
        say("fuzz.actual"),
        mismatch.actual if isinstance(mismatch.actual, str) else _json(mismatch.actual),
        say("fuzz.replay", command=run.replay),
    ]
    return "\n".join(lines)


def fuzz_message(run: FuzzRun, say: Messages) -> str | None:
    """The scenario's message: the shrunk example, the error, or None when it passed."""
    if run.error is not None:
        return f"{say('fuzz.could_not_run', error=run.error)}\n{say('fuzz.replay', command=run.replay)}"
    if run.mismatch is not None:
        return mismatch_text(run, run.mismatch, say)
    if run.tolerated is not None:  # every case ran; the only differences are the baselined requirements'
        tolerated = say("fuzz.tolerated", cases=run.tolerated_count, requirements=", ".join(run.tolerated_requirements))
        return f"{tolerated}\n{mismatch_text(run, run.tolerated, say)}"
    if run.incomplete:
        calls = run.cases_run + run.sweep_calls
        incomplete = say(
            "fuzz.incomplete",
            cases=run.cases_run,
            count=run.settings.count,
            sweep=run.sweep_calls,
            sweep_total=run.settings.sweep_total,
            seconds=run.duration_s,
            per_call=1000 * run.duration_s / calls if calls else 0.0,
        )
        return f"{incomplete}\n{say('fuzz.replay', command=run.replay)}"
    return None


def scenario_name(seed: int) -> str:
    """The fuzz phase's scenario name, without what it ran: the same on every run with this seed."""
    return f"generated conversations, seed {seed}"


def scenario_title(run: FuzzRun) -> str:
    """The name in every report: :func:`scenario_name` and, in brackets, how many cases and sweep calls ran."""
    settings = run.settings
    ran = f"{run.cases_run} of {settings.count} cases, argument sweep {run.sweep_calls} of {settings.sweep_total} calls"
    return f"{scenario_name(settings.seed)} [{ran}]"


def fuzz_scenario(run: FuzzRun) -> ScenarioResult:
    """One scenario result for every report."""
    shown = run.mismatch or run.tolerated
    requirements = mismatch_requirements(shown) if shown else fuzzed_requirements()
    transcript = [shown.exchange] if shown and shown.exchange else []
    return ScenarioResult(
        feature=FEATURE,
        feature_file=FEATURE_FILE,
        scenario=scenario_title(run),
        line=0,
        tags=("fuzz", *requirements),
        requirements=requirements,
        level="MUST",
        status="passed" if run.passed and run.tolerated is None else "failed",
        message=fuzz_message(run, messages()),  # English, as every report's
        duration_s=run.duration_s,
        transcript=transcript,
        baselined=run.tolerated_requirements,
    )


def _verdict_key(run: FuzzRun) -> str:
    if run.passed:
        return "fuzz.passed" if run.tolerated is None else "fuzz.baselined"
    return "fuzz.incomplete_verdict" if run.incomplete else "fuzz.failed"


def throughput_line(run: FuzzRun, say: Messages) -> str:
    """``fuzz: 500 of 500 cases in 9.87s (50.7 cases/s), seed 1, digest 1a2b3c4d5e6f, ...: passed``."""
    return say(
        "fuzz.throughput",
        cases=run.cases_run,
        count=run.settings.count,
        seconds=run.duration_s,
        rate=run.throughput,
        seed=run.settings.seed,
        digest=run.digest[:12],
        sweep=say("fuzz.sweep", calls=run.sweep_calls, total=run.settings.sweep_total) if run.settings.sweep else "",
        limit=say("fuzz.time_limit", limit=run.settings.bound) if run.timed_out else "",
        verdict=say(_verdict_key(run)),
    )


def fuzz_console_lines(run: FuzzRun, *, verbose: bool, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """Printed after the summary, in ``language``: the throughput line, and the shrunk example on a failure."""
    say = messages(language)
    lines = ["", throughput_line(run, say)]
    message = fuzz_message(run, say)
    if message is not None and not verbose:
        lines.append(neutralise(message))  # it shows the server's answer
    return lines
