"""The profile on the console: the table per size, the growth, the verdicts, warnings and wrong answers."""

from __future__ import annotations

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, messages
from ccweb_conformance.profile.budgets import grouped, shown
from ccweb_conformance.profile.format import SIZE_HEADERS, growth_cells, size_rows, table
from ccweb_conformance.profile.model import Profile


def growth_table(profile: Profile) -> tuple[list[str], list[list[str]]]:
    """Headers and rows: one row per step between sizes, two columns per implementation."""
    headers = ["from -> to", "file"]
    for implementation in profile.implementations:
        headers += [f"{implementation.name} first", f"{implementation.name} repeated"]
    own = [{(g.from_messages, g.to_messages): g for g in i.growth} for i in profile.implementations]
    steps = {key: step for growth in own for key, step in growth.items()}
    rows = []
    for key, step in sorted(steps.items()):
        cells = [cell for growth in own for cell in growth_cells(growth.get(key))]
        rows.append([f"{key[0]:,} -> {key[1]:,}", f"x{step.file_ratio:,.1f}", *cells])
    return headers, rows


def wrong_lines(profile: Profile) -> list[str]:
    """Every wrong answer and stopped implementation, with what differed."""
    lines: list[str] = []
    for implementation in profile.implementations:
        for size, wrong in implementation.wrong:
            lines.append(
                f"  {implementation.name} at {size.messages:,} messages, {wrong.phase} call {wrong.call} "
                f"(revision {wrong.revision}):"
            )
            lines += [f"      {difference}" for difference in wrong.differences]
        for size in implementation.failures:
            lines.append(f"  {implementation.name} stopped answering at {size.messages:,} messages: {size.failure}")
    return lines


def render_profile(profile: Profile, language: str = DEFAULT_LANGUAGE) -> str:
    """The whole console report, its headings in ``language`` (en or zh-CN)."""
    say = messages(language)
    count = len(profile.implementations)
    lines = [
        f"ccweb-conformance profile: {count} implementation{'s' if count > 1 else ''}, "
        f"{len(profile.sizes)} sizes, {profile.duration_s:.1f} s",
    ]
    width = max(len(i.name) for i in profile.implementations)
    lines += [f"  {i.name.ljust(width)}  {i.description}" for i in profile.implementations]
    lines += [f"  config file: {profile.config_file}"] if profile.config_file else []
    lines += ["", *table(SIZE_HEADERS, size_rows(profile), left={2, 9})]
    lines += [
        "",
        "  first: the first call after the file changed; repeated: calls on the unchanged file; floor: a tools/list",
        "  round trip; read/call and memory for servers this run started (rchar per repeated call, Linux only; peak",
        "  resident memory, Linux only, and its growth over the idle server as a multiple of the file)",
    ]
    headers, growth_rows = growth_table(profile)
    if growth_rows:
        lines += ["", say("profile.growth"), *table(headers, growth_rows, left={0})]
    lines += ["", say("profile.verdict")]
    lines += [f"  {i.name.ljust(width)}  {i.verdict.summary if i.verdict else '-'}" for i in profile.implementations]
    if profile.advisories:
        lines += ["", say("profile.advisories", count=len(profile.advisories))]
        for advisory, values in grouped(profile.advisories):
            limit = shown(advisory.metric, advisory.limit)
            lines.append(f"  warning: {advisory.budget} {advisory.statement} (limit {limit})")
            lines += [f"      {name}: {value}" for name, value in values]
            lines.append(f"      why: {advisory.reason}")
    else:
        lines += ["", say("profile.budgets_met")]
    wrong = wrong_lines(profile)
    checked = sum(size.calls_checked for i in profile.implementations for size in i.sizes)
    lines += ["", say("profile.wrong"), *wrong] if wrong else ["", say("profile.correct", checked=checked)]
    return "\n".join(lines)
