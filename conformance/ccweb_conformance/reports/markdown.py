"""A compact Markdown report for a CI step summary (``$GITHUB_STEP_SUMMARY``).

A header with the verdict, target, protocol and spec version and the totals; a collapsible
section per failed (or unexpectedly passing) scenario and per warning, with the message
code-fenced and cut to a readable length (identical failures once, the other scenarios named
after it); a table of requirements per group; and a list of the expected failures with their
reasons. The words come from the messages of
the language (``locales/``); in Chinese the requirement table also carries each statement.

The server's text (a failure's headline, its message, the processes it left) stands only inside code spans
and fenced blocks longer than any run of backticks in it, so none of its Markdown renders; it is rendered from
the neutral copy of the run (:func:`~ccweb_conformance.reports.neutral.neutral`).
"""

from __future__ import annotations

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages, translated
from ccweb_conformance.reports.common import grouped_requirements, problem, run_notes, totals_line
from ccweb_conformance.reports.eras_tested import protocol_shown
from ccweb_conformance.reports.failure_block import headline, scenario_block, scenario_hint
from ccweb_conformance.reports.failure_groups import FailureGroup, failure_groups
from ccweb_conformance.reports.markdown_text import cell, code, fenced
from ccweb_conformance.reports.model import RequirementResult, Rerun, RunResult, ScenarioResult
from ccweb_conformance.reports.rerun_alone import rerun_line
from ccweb_conformance.reports.what_ran import counted_line, inputs_lines, reference_note, skipped_lines
from ccweb_conformance.transport.channel import cut

__all__ = ["render_markdown"]

MESSAGE_LIMIT = 2000
"""Characters of a message shown in a details section."""
DETAILS_LIMIT = 50
"""Details sections shown at most (GitHub caps a step summary at 1 MiB)."""


def render_markdown(run: RunResult, language: str = DEFAULT_LANGUAGE) -> str:
    """The report as Markdown text, in ``language`` (en or zh-CN)."""
    say = messages(language)
    verdict = say(f"markdown.run_{run.verdict}")
    if run.verdict == "passed" and run.selection is not None:
        verdict += say("verdict.selection", selection=run.selection)
    lines = [
        say("markdown.heading", verdict=verdict),
        "",
        say(
            "markdown.target",
            target=code(translated(run.target, language, "targets")),
            transport=translated(run.transport, language, "transports"),
        ),
        say(
            "markdown.versions",
            protocol=code(protocol_shown(run, say)),
            spec=code(run.spec_version),
            kit=code(run.kit_version),
            strict=say("markdown.strict") if run.strict else "",
        ),
        say("markdown.scenarios", totals=totals_line(run, say)),
        *[f"  \n{cell(note)}" for note in reference_note(run, say) + inputs_lines(run, say) + counted_line(run, say)],
        *[f"  \n{cell(note)}" for note in skipped_lines(run, say)],
        *[f"  \n**{code(note)}**" for note in run_notes(run, say)],
    ]
    lines += _details(run, say)  # failures first: a step summary is read from the top
    for group, results in grouped_requirements(run):
        if results:
            heading = say("markdown.group_heading", id=group.id, title=cell(say.title(group)))
            lines += ["", heading, "", *_table(results, say)]
    lines += _expected_failures(run, say)
    return "\n".join(lines) + "\n"


def _table(results: list[RequirementResult], say: Messages) -> list[str]:
    header = say("markdown.table_header")
    rows = [header, "|" + "---|" * (header.count("|") - 1)]
    for result in results:
        ran = sum(1 for s in result.scenarios if s.status not in ("skipped", "notrun"))
        requirement = result.requirement
        rows.append(
            say(
                "markdown.table_row",
                id=requirement.id,
                level=requirement.level,
                status=say(f"markdown.status.{result.status}"),
                ran=ran,
                statement=cell(say.statement(requirement)),
            )
        )
    return rows


def _details(run: RunResult, say: Messages) -> list[str]:
    sections = [("markdown.failures", ("failed", "xpassed")), ("markdown.warnings", ("warning",))]
    lines: list[str] = []
    for title, statuses in sections:
        scenarios = [s for s in run.scenarios if s.status in statuses]
        if not scenarios:
            continue
        lines += ["", say(title)]
        groups = failure_groups(scenarios)  # identical failures once, the others named
        for group in groups[:DETAILS_LIMIT]:
            lines += ["", *_section(group.first, say), *_others(group, say)]
        if len(groups) > DETAILS_LIMIT:
            lines += ["", say("markdown.more", n=sum(len(g.scenarios) for g in groups[DETAILS_LIMIT:]))]
    return lines


def _others(group: FailureGroup, say: Messages) -> list[str]:
    """The group's other scenarios, by name, after the first one's section."""
    if not group.others:
        return []
    names = ", ".join(_span(s.nodeid) for s in group.others[:DETAILS_LIMIT])
    if len(group.others) > DETAILS_LIMIT:
        names += " " + say("markdown.more", n=len(group.others) - DETAILS_LIMIT)
    return ["", say("markdown.same_failure", count=len(group.others), names=names)]


def _expected_failures(run: RunResult, say: Messages) -> list[str]:
    expected = [s for s in run.scenarios if s.status == "xfailed"]
    if not expected:
        return []
    no_reason = say("problem.no_reason")
    reasons = [f"- {code(s.nodeid)}: {cell(s.expected_failure_reason or no_reason)}" for s in expected]
    return ["", say("markdown.expected_failures"), "", *reasons]


def _section(scenario: ScenarioResult, say: Messages) -> list[str]:
    """The headline visible (requirement, check, first difference), the hint, then the whole block folded."""
    if scenario.detail is None:
        text = cut(problem(scenario, say) or "", MESSAGE_LIMIT, separator="\n")
        charged = scenario.failed_requirements() or scenario.requirements
        summary = _html(f"{scenario.nodeid} ({', '.join(charged)})")
        rerun = [] if scenario.reproducer is None else [say("markdown.rerun", command=_span(scenario.reproducer)), ""]
        rerun += [] if scenario.rerun is None else [_alone(scenario.rerun, say), ""]
        return [*rerun, "<details>", f"<summary>{summary}</summary>", "", *fenced(text), "", "</details>"]
    text = cut("\n".join(scenario_block(scenario, say.language)), MESSAGE_LIMIT, separator="\n")
    shown = [f"- **{_html(scenario.nodeid)}**: {code(headline(scenario, say.language))}"]
    hint = scenario_hint(scenario, say.language)
    if hint is not None:
        shown.append(f"  {say('markdown.hint', hint=cell(hint))}")
    if scenario.reproducer is not None:
        shown.append(f"  {say('markdown.rerun', command=_span(scenario.reproducer))}")
    if scenario.rerun is not None:
        shown.append(f"  {_alone(scenario.rerun, say)}")
    details = ["<details>", f"<summary>{_html(say('markdown.block'))}</summary>", "", *fenced(text)]
    return [*shown, "", *details, "", "</details>"]


def _alone(rerun: Rerun, say: Messages) -> str:
    """The scenario run again alone: the kit's words, what stopped the rerun (the server's) in a code span."""
    return cell(rerun_line(rerun, say.language, quote=code))


def _span(text: str) -> str:
    """``text`` as one code span as it is (a command, a scenario id: their white space kept)."""
    return code(text, one_line_first=False)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
