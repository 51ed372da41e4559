"""JUnit XML, as GitHub and GitLab CI, Jenkins and most test dashboards read it.

``<testsuites>`` holds one ``<testsuite>`` per feature; each scenario is a ``<testcase>``
with ``classname`` = the feature file and ``name`` = the scenario. Suites with a failure come
first, and in each suite failed (and not-run) testcases, then warnings, then the rest, each in
run order: viewers that keep the file's order (xunit-viewer, junit2html) show what broke at the
top. How statuses map:

* passed: a plain testcase.
* failed: ``<failure message="first line" type="failure">`` with the whole message, the
  requirement IDs and the transcript as text.
* warning (a SHOULD-level scenario failed): a *passed* testcase whose ``<system-out>`` reads
  ``WARN (SHOULD, not failing the run): <message>``, and a ``<property name="warning">`` on its
  testsuite naming the scenario (JUnit has no warning status, ``junit-10.xsd`` allows no
  properties on a testcase, and a warning does not fail the run); the suite's
  ``warnings`` property counts them. With ``strict`` it is a ``<failure type="warning">``
  instead, as it fails the run.
* xfailed: ``<skipped type="xfail" message="expected failure: <reason>">`` with the message.
* xpassed: ``<failure type="xpass" message="expected failure passed: <reason>">``.
* skipped: ``<skipped message="...">``.
* notrun (the run stopped before it: a signal, ``--max-time``, the server stopped answering):
  ``<error type="notrun" message="not run: <why>">`` - never a pass. The suites' properties
  then include ``interrupted`` (the signal) or ``stopped`` (why); a run interrupted before any
  scenario was selected has one ``run`` testcase with the error.

The file is valid against Jenkins xUnit's ``junit-10.xsd`` (the schema the GitHub, GitLab
and Jenkins reporters accept): ``<testsuites>`` carries name, time and the counts but no
timestamp or skipped count; a testcase carries no file or line.

Each ``<testsuite>`` has a few properties, the run's (target, transport, protocol, spec and kit
versions) and only those of its options that were set (strict, selection, config file, …), so a
viewer's properties table stays short. The report is written in the run's language (``--lang``):
the failure's headline, hint and block, the target and the warning notes. A failure that says
what an earlier one in the report said (:mod:`failure_groups`) points to it instead of repeating
its block and transcript.

A requirement whose scenarios ran but stopped before any check of it is never a pass: each
``<testsuite>`` holding such a scenario has a ``notReached`` property per requirement whose run verdict
is "not reached" (``ARG-3: not reached: ...``), and a failure's text names the requirements its
scenario did not reach.

Characters XML 1.0 cannot carry (control characters, lone surrogates) are written as
``\\xNN`` / ``\\uNNNN`` escapes, so the file is always well-formed; the server's other text is kept whole, the
start of a line a CI runner would act on written as a character reference
(:func:`~ccweb_conformance.reports.neutral.xml_escapes`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages, translated
from ccweb_conformance.reports.common import first_line, format_transcript, problem
from ccweb_conformance.reports.failure_block import headline, scenario_block, scenario_hint
from ccweb_conformance.reports.failure_groups import failure_groups
from ccweb_conformance.reports.model import RunResult, ScenarioResult, unreached_requirements
from ccweb_conformance.reports.neutral import xml_escapes

__all__ = ["build_junit", "render_junit"]

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MESSAGE_LIMIT = 1000


def _clean(text: str) -> str:
    """Text XML 1.0 can carry."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def build_junit(run: RunResult, language: str = DEFAULT_LANGUAGE) -> ET.Element:
    """The ``<testsuites>`` element for a run, in ``language`` (en or zh-CN)."""
    features: dict[str, list[ScenarioResult]] = {}
    for scenario in run.scenarios:
        features.setdefault(scenario.feature_file, []).append(scenario)
    root = ET.Element("testsuites", name="ccweb-conformance", time=_seconds(run.duration_s))
    say = messages(language)
    shown = [s for s in run.scenarios if s.status in ("failed", "warning") and s.detail is not None]
    # each failure that says what an earlier one said, by id: the first scenario of its group
    same_as = {id(other): group.first for group in failure_groups(shown) for other in group.others}
    unreached = {r.requirement.id for r in run.requirement_results() if r.status == "notreached"}
    suites = [
        _suite(run, feature_file, scenarios, say, same_as, unreached) for feature_file, scenarios in features.items()
    ]
    root.extend(sorted(suites, key=lambda s: 0 if s.get("failures") != "0" or s.get("errors") != "0" else 1))
    if not run.scenarios and run.interrupted is not None:
        suite = ET.SubElement(root, "testsuite", name="ccweb-conformance")
        case = ET.SubElement(suite, "testcase", classname="ccweb-conformance", name="run")
        ET.SubElement(case, "error", type="interrupted", message=f"INTERRUPTED by {run.interrupted} during start-up")
        _count(suite, [case])
    _count(root, list(root))
    return root


def render_junit(run: RunResult, language: str = DEFAULT_LANGUAGE) -> str:
    """The JUnit XML report (with its UTF-8 declaration) in ``language``."""
    root = build_junit(run, language)
    ET.indent(root)
    return xml_escapes(ET.tostring(root, encoding="utf-8", xml_declaration=True).decode("utf-8")) + "\n"


def _properties(run: RunResult, say: Messages) -> list[tuple[str, str]]:
    """The run's properties: always what was tested with what, then only the options that were set."""
    always = [
        ("target", translated(run.target, say.language, "targets")),
        ("transport", translated(run.transport, say.language, "transports")),
        ("protocolVersion", run.protocol_version or ""),
        ("specVersion", run.spec_version),
        ("kitVersion", run.kit_version),
    ]
    when_set = [
        ("protocolVersions", " ".join(run.eras) if len(run.eras) > 1 else ""),
        ("strict", "true" if run.strict else ""),
        ("interrupted", run.interrupted or ""),
        ("stopped", run.stopped or ""),
        ("selection", run.selection or ""),
        ("configFile", run.config_file or ""),
        ("expectedFailuresFile", run.expected_failures_file or ""),
    ]
    return always + [(name, value) for name, value in when_set if value]


def _rank(scenario: ScenarioResult, strict: bool) -> int:
    """Failures (and not-run scenarios) first, then warnings, then the rest."""
    if scenario.status in ("failed", "xpassed", "notrun") or (scenario.status == "warning" and strict):
        return 0
    return 1 if scenario.status == "warning" else 2


def _suite(  # noqa: PLR0917 (one call site)
    run: RunResult,
    feature_file: str,
    scenarios: list[ScenarioResult],
    say: Messages,
    same_as: dict[int, ScenarioResult],
    unreached: set[str],
) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(scenarios[0].feature))
    suite.set("time", _seconds(sum(s.duration_s for s in scenarios)))
    suite.set("timestamp", run.started_at)
    suite.set("file", _clean(feature_file))
    properties = ET.SubElement(suite, "properties")
    for name, value in _properties(run, say):
        ET.SubElement(properties, "property", name=name, value=_clean(value))
    _not_reached(properties, scenarios, unreached)
    warnings = [s for s in scenarios if s.status == "warning" and not run.strict]
    if warnings:
        ET.SubElement(properties, "property", name="warnings", value=str(len(warnings)))
    for scenario in warnings:
        said = headline(scenario, say.language) if scenario.detail is not None else problem(scenario, say) or ""
        note = f"{scenario.scenario}: {first_line(said)}"
        ET.SubElement(properties, "property", name="warning", value=_clean(note[:_MESSAGE_LIMIT]))
    cases = [_case(run, s, say, same_as.get(id(s))) for s in sorted(scenarios, key=lambda s: _rank(s, run.strict))]
    suite.extend(cases)
    _count(suite, cases)
    return suite


def _count(element: ET.Element, children: list[ET.Element]) -> None:
    """Set tests/failures/errors/skipped on a suite (from its testcases) or on testsuites."""
    if element.tag == "testsuites":
        totals = {k: sum(int(c.get(k, "0")) for c in children) for k in ("tests", "failures", "errors")}
    else:
        found = (("failures", "failure"), ("errors", "error"), ("skipped", "skipped"))  # count, and its element
        totals = {"tests": len(children), **{key: sum(c.find(tag) is not None for c in children) for key, tag in found}}
    for key, value in totals.items():
        element.set(key, str(value))


def _case(run: RunResult, scenario: ScenarioResult, say: Messages, same_as: ScenarioResult | None) -> ET.Element:
    case = ET.Element("testcase", classname=_clean(scenario.feature_file), name=_clean(scenario.scenario))
    case.set("time", _seconds(scenario.duration_s))
    text = problem(scenario, say) or ""
    status = scenario.status
    if status == "failed" or (status == "warning" and run.strict):
        message = headline(scenario, say.language) if scenario.detail is not None else first_line(text)
        kind = "failure" if status == "failed" else "warning"
        _failure(case, scenario, message, kind, text, say, same_as)
    elif status == "xpassed":
        _failure(case, scenario, text, "xpass", text, say, None)
    elif status == "warning":
        ET.SubElement(case, "system-out").text = _clean(f"WARN (SHOULD, not failing the run): {text}")
    elif status == "xfailed":
        reason = scenario.expected_failure_reason or "no reason given"
        ET.SubElement(case, "skipped", type="xfail", message=_clean(f"expected failure: {reason}")).text = _clean(text)
    elif status == "skipped":
        ET.SubElement(case, "skipped", message=_clean(first_line(text) or "skipped"))
    elif status == "notrun":
        ET.SubElement(case, "error", type="notrun", message=_clean(first_line(text) or "not run")).text = _clean(text)
    return case


def _not_reached(properties: ET.Element, scenarios: list[ScenarioResult], unreached: set[str]) -> None:
    """A ``notReached`` property per requirement not reached in the run that a scenario of this suite stopped before."""
    stopped: dict[str, list[ScenarioResult]] = {}
    for scenario in scenarios:
        for requirement in unreached_requirements(scenario):
            if requirement in unreached:
                stopped.setdefault(requirement, []).append(scenario)
    for requirement, before in stopped.items():
        charged = ", ".join(dict.fromkeys(r for s in before for r in s.failed_requirements()))
        note = (
            f"{requirement}: not reached: {len(before)} scenario(s) of it stopped at a check of {charged} "
            "before any check of it (never a pass)"
        )
        ET.SubElement(properties, "property", name="notReached", value=_clean(note))


def _failure(  # noqa: PLR0917 (one call site each, positional like the rest of the module)
    case: ET.Element,
    scenario: ScenarioResult,
    message: str,
    kind: str,
    text: str,
    say: Messages,
    same_as: ScenarioResult | None,
) -> None:
    hint = scenario_hint(scenario, say.language)
    if hint is not None:
        message = f"{message} | {say('markdown.hint', hint=hint)}"
    failure = ET.SubElement(case, "failure", message=_clean(message[:_MESSAGE_LIMIT]), type=kind)
    charged = scenario.failed_requirements() or scenario.requirements
    requirements = f"requirements: {', '.join(charged)} ({scenario.level})"
    if same_as is not None:  # an earlier testcase holds the block: name it, and what reruns this one
        body = [say("junit.same_failure", scenario=same_as.nodeid), "", requirements]
        if scenario.reproducer is not None:
            body.append(say("markdown.rerun", command=scenario.reproducer))
        failure.text = _clean("\n".join(body))
        return
    block = [*scenario_block(scenario, say.language), ""] if scenario.detail is not None else []
    body = [*block, text, "", requirements]
    unreached = unreached_requirements(scenario)
    if unreached:
        body.append(f"not reached: {', '.join(unreached)} (the scenario stopped before any check of them)")
    if scenario.reproducer is not None and scenario.detail is None:  # the block holds it otherwise
        body.append(say("markdown.rerun", command=scenario.reproducer))
    if scenario.transcript:
        body += ["", "transcript:", format_transcript(scenario.transcript)]
    failure.text = _clean("\n".join(body))
