"""The console summary printed at the end of a run.

Requirements are listed under their group (acceptance criteria first, in spec order): without
verbose, the passing ones of a group on one line (``PASS      TOOL-1 TOOL-2``), every other one
with its level and verdict; verbose lists each with its level and verdict; failing, warning and
unexpectedly passing scenarios are listed under the requirement with their message (first line;
the whole message when verbose). The fuzz phase's block comes before the totals: the last line
is the scenario totals, e.g. ``48 passed, 2 failed, 1 warnings in 3.21s``
(``INTERRUPTED: 9 passed, 0 failed, 159 not run in 2.10s`` when a signal stopped the run);
with colour it is wrapped in one ANSI colour, and stripping ANSI codes gives that exact text.
The words come from the messages of the language (``locales/``); in Chinese each
requirement line also carries its statement, and columns are padded by display width (a CJK
character takes two columns), so they line up in a terminal.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages, translated
from ccweb_conformance.reports.common import first_line, grouped_requirements, problem, run_notes, totals_line
from ccweb_conformance.reports.eras_tested import protocol_shown
from ccweb_conformance.reports.failure_groups import failure_blocks
from ccweb_conformance.reports.model import (
    RequirementResult,
    RequirementStatus,
    RunResult,
    ScenarioResult,
    ScenarioStatus,
    not_reached,
)
from ccweb_conformance.reports.neutral import neutral, neutralise
from ccweb_conformance.reports.what_ran import counted_line, inputs_lines, reference_note, skipped_lines
from ccweb_conformance.textwidth import display_width, ljust
from ccweb_spec import yaml_data

__all__ = ["render_summary"]

_RESET = "\033[0m"
_STYLES = yaml_data((Path(__file__).parent / "console_styles.yaml").read_text(encoding="utf-8"))
_COLOURS: dict[str, str] = _STYLES["colours"]
_LABELS: dict[ScenarioStatus | RequirementStatus, str] = _STYLES["labels"]
"""A scenario's or a requirement's status as the console labels (and colours) it (``console_styles.yaml``)."""
_Paint = Callable[[str, str], str]
"""Text wrapped in the colour of a label (``PASS``, ``bold``), or not."""
_SHOWN = ("failed", "xpassed", "warning")
"""Scenario statuses listed under a requirement without --verbose."""
_STATUSES: tuple[RequirementStatus, ...] = ("passed", "failed", "warning", "xfailed", "notreached", "untested")
_ID_WIDTH, _LEVEL_WIDTH = 9, 6
"""Columns of the requirement ID and level (the longest: PROTO-1, SHOULD)."""


def render_summary(
    run: RunResult,
    *,
    color: bool,
    verbose: bool,
    language: str = DEFAULT_LANGUAGE,
    before_totals: Sequence[str] = (),
    safe: RunResult | None = None,
) -> str:
    """The summary as text (no trailing newline), in ``language`` (en or zh-CN); server text neutralised.

    ``before_totals``: lines shown after the failure blocks and before the totals (the fuzz phase's
    block), so that the totals line is the last, as pytest ends. ``safe``: ``neutral(run)`` when the caller has
    made it already (one walk of a run's transcripts for the reports and the summary).
    """
    # The failure blocks read the raw values (their hints look at the characters): each block is neutralised
    # as the plain text it is.
    raw, run = run, neutral(run) if safe is None else safe
    say = messages(language)

    def paint(key: str, text: str) -> str:
        """``text`` in the ANSI colour of label ``key`` (``console_styles.yaml``) when ``color``; else as it is."""
        return f"{_COLOURS[key]}{text}{_RESET}" if color and key in _COLOURS else text

    verdict = {
        "interrupted": paint("INTERRUPTED", say("verdict.run_interrupted")),
        "failed": paint("FAIL", say("verdict.run_failed")),
        "passed": paint("PASS", say("verdict.run_passed")),
    }[run.verdict]
    if run.verdict == "passed" and run.selection is not None:  # never a full pass: name what was left out
        verdict += say("verdict.selection", selection=run.selection)
    lines = [
        say("console.verdict_line", title=paint("bold", say("console.title")), verdict=verdict),
        say(
            "console.target_line",
            target=translated(run.target, language, "targets"),
            transport=translated(run.transport, language, "transports"),
            protocol=protocol_shown(run, say),
            spec=run.spec_version,
            kit=run.kit_version,
            strict=say("console.strict") if run.strict else "",
        ),
        *reference_note(run, say),
        *inputs_lines(run, say),
        *run_notes(run, say),
    ]
    lines += _requirement_table(run, paint, verbose, say)
    blocks = [neutralise(block) for block in failure_blocks(raw, verbose=verbose, language=language)]
    if blocks:
        lines += ["", paint("bold", blocks[0]), *blocks[1:]]
    shown_before = list(itertools.dropwhile(lambda line: not line, before_totals))
    if shown_before:  # one blank line above, whatever the block starts with
        lines += ["", *shown_before]
    counts = run.counts()
    colour = "FAIL" if run.failed else "WARN" if counts["warning"] or counts["xfailed"] else "PASS"
    skips = [paint("WARN", line) for line in skipped_lines(run, say)]
    lines += ["", *skips, *counted_line(run, say), paint(colour, totals_line(run, say))]
    if run.interrupted is not None:
        lines[-1] = paint("FAIL", say("totals.interrupted", totals=totals_line(run, say)))
    return "\n".join(lines)


def _requirement_table(run: RunResult, paint: _Paint, verbose: bool, say: Messages) -> list[str]:
    """The requirements under their group: compact (the passing ones of a criterion on one line) unless verbose."""
    grouped = grouped_requirements(run)
    shown = {r.status for _, results in grouped for r in results}
    padded = [s for s in _STATUSES if s != "notreached" or s in shown]  # its long label widens only tables that hold it
    width = max(display_width(say(f"verdict.{status}")) for status in padded)
    lines: list[str] = []
    for group, results in grouped:
        if not results:
            continue
        lines += ["", paint("bold", say("console.group_heading", id=group.id, title=say.title(group)))]
        passed = [] if verbose else [r.requirement.id for r in results if r.status == "passed"]
        if passed:  # compact: the passing requirements of a criterion on one line; the others in full
            label = paint(_LABELS["passed"], ljust(say("verdict.passed"), width))
            lines.append(say("console.passed_line", verdict=label, ids=" ".join(passed)))
        for result in results:
            if verbose or result.status != "passed":
                lines += _requirement_lines(result, width, paint, verbose, say)
    return lines


def _requirement_lines(result: RequirementResult, width: int, paint: _Paint, verbose: bool, say: Messages) -> list[str]:
    label = say(f"verdict.{result.status}")
    requirement = result.requirement
    line = say(
        "console.requirement_line",
        verdict=paint(_LABELS[result.status], ljust(label, width)),
        id=ljust(requirement.id, _ID_WIDTH),
        level=ljust(requirement.level, _LEVEL_WIDTH),
        statement=say.statement(requirement),
    )
    lines = [line.rstrip(" ")]
    for scenario in result.scenarios:
        if result.status == "notreached" and not_reached(requirement.id, scenario):
            lines.append(_unreached_line(scenario, requirement.id, paint, say))
        elif verbose or (scenario.status in _SHOWN and requirement.id in scenario.failed_requirements()):
            lines += _scenario_lines(scenario, paint, verbose, say)
    return lines


def _unreached_line(scenario: ScenarioResult, requirement: str, paint: _Paint, say: Messages) -> str:
    """A scenario of a requirement that stopped before its checks: where it stopped."""
    label = _LABELS[scenario.status]
    head = say("console.scenario_line", label=paint(label, label), scenario=scenario.nodeid)
    charged = ", ".join(scenario.failed_requirements())
    return say("console.not_reached_by", head=head, charged=charged, requirement=requirement)


def _scenario_lines(scenario: ScenarioResult, paint: _Paint, verbose: bool, say: Messages) -> list[str]:
    label = _LABELS[scenario.status]
    head = say("console.scenario_line", label=paint(label, label), scenario=scenario.nodeid)
    text = problem(scenario, say)
    if scenario.status == "xfailed" and scenario.expected_failure_reason:
        text = say("problem.expected_failure", reason=scenario.expected_failure_reason)
    if not text:
        return [head]
    if not verbose:
        problem_text = translated(scenario.detail.check, say.language) if scenario.detail else first_line(text)
        return [say("console.scenario_problem", head=head, problem=problem_text)]
    return [head, *(f"          {line}" for line in text.splitlines())]
