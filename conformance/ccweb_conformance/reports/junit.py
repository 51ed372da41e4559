"""JUnit XML, as GitHub and GitLab CI, Jenkins and most test dashboards read it.

``<testsuites>`` holds one ``<testsuite>`` per feature; each scenario is a ``<testcase>``
with ``classname`` = the feature file and ``name`` = the scenario. How statuses map:

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
  ``<error type="notrun" message="not run: <why>">`` - never a pass. Each ``<testsuite>``
  has the properties ``interrupted`` (the signal, or empty) and ``stopped`` (why, or empty);
  a run interrupted before any scenario was selected has one ``run`` testcase with the error.

The file is valid against Jenkins xUnit's ``junit-10.xsd`` (the schema the GitHub, GitLab
and Jenkins reporters accept): ``<testsuites>`` carries name, time and the counts but no
timestamp or skipped count; a testcase carries no file or line.

A requirement whose scenarios ran but stopped before any check of it is never a pass: each
``<testsuite>`` holding such a scenario has a ``notReached`` property per requirement whose run verdict
is "not reached" (``ARG-3: not reached: ...``), and a failure's text names the requirements its
scenario did not reach.

Each ``<testsuite>`` has ``statement_zh`` properties (``<ID>: <Chinese statement>``) for the
requirements its testcases prove: junit-10.xsd has no room for properties on a testcase.

Characters XML 1.0 cannot carry (control characters, lone surrogates) are written as
``\\xNN`` / ``\\uNNNN`` escapes, so the file is always well-formed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import ccweb_spec
from ccweb_conformance.reports.common import first_line, format_transcript, problem
from ccweb_conformance.reports.failure_block import headline, scenario_block, scenario_hint
from ccweb_conformance.reports.model import RunResult, ScenarioResult, unreached_requirements

__all__ = ["build_junit", "write_junit"]

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MESSAGE_LIMIT = 1000


def _clean(text: str) -> str:
    """Text XML 1.0 can carry."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def build_junit(run: RunResult) -> ET.Element:
    """The ``<testsuites>`` element for a run."""
    features: dict[str, list[ScenarioResult]] = {}
    for scenario in run.scenarios:
        features.setdefault(scenario.feature_file, []).append(scenario)
    root = ET.Element("testsuites", name="ccweb-conformance", time=_seconds(run.duration_s))
    unreached = {r.requirement.id for r in run.requirement_results() if r.status == "notreached"}
    for feature_file, scenarios in features.items():
        root.append(_suite(run, feature_file, scenarios, unreached))
    if not run.scenarios and run.interrupted is not None:
        suite = ET.SubElement(root, "testsuite", name="ccweb-conformance")
        case = ET.SubElement(suite, "testcase", classname="ccweb-conformance", name="run")
        ET.SubElement(case, "error", type="interrupted", message=f"INTERRUPTED by {run.interrupted} during start-up")
        _count(suite, [case])
    _count(root, list(root))
    return root


def write_junit(run: RunResult, path: Path) -> None:
    """Write the JUnit XML report (UTF-8, with an XML declaration)."""
    root = build_junit(run)
    ET.indent(root)
    Path(path).write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n")


def _suite(run: RunResult, feature_file: str, scenarios: list[ScenarioResult], unreached: set[str]) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(scenarios[0].feature))
    suite.set("time", _seconds(sum(s.duration_s for s in scenarios)))
    suite.set("timestamp", run.started_at)
    suite.set("file", _clean(feature_file))
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("target", run.target),
        ("transport", run.transport),
        ("protocolVersion", run.protocol_version or ""),
        ("protocolVersions", " ".join(run.eras)),
        ("specVersion", run.spec_version),
        ("kitVersion", run.kit_version),
        ("strict", str(run.strict).lower()),
        ("interrupted", run.interrupted or ""),
        ("stopped", run.stopped or ""),
        ("selection", run.selection or ""),
        ("configFile", run.config_file or ""),
        ("expectedFailuresFile", run.expected_failures_file or ""),
    ):
        ET.SubElement(properties, "property", name=name, value=_clean(value))
    _statements(properties, scenarios)
    _not_reached(properties, scenarios, unreached)
    warnings = [s for s in scenarios if s.status == "warning" and not run.strict]
    ET.SubElement(properties, "property", name="warnings", value=str(len(warnings)))
    for scenario in warnings:
        note = f"{scenario.scenario}: {first_line(problem(scenario) or '')}"
        ET.SubElement(properties, "property", name="warning", value=_clean(note[:_MESSAGE_LIMIT]))
    cases = [_case(run, s) for s in scenarios]
    suite.extend(cases)
    _count(suite, cases)
    return suite


def _count(element: ET.Element, children: list[ET.Element]) -> None:
    """Set tests/failures/errors/skipped on a suite (from its testcases) or on testsuites."""
    if element.tag == "testsuites":
        totals = {k: sum(int(c.get(k, "0")) for c in children) for k in ("tests", "failures", "errors")}
    else:
        totals = {
            "tests": len(children),
            "failures": sum(1 for c in children if c.find("failure") is not None),
            "errors": sum(1 for c in children if c.find("error") is not None),
            "skipped": sum(1 for c in children if c.find("skipped") is not None),
        }
    for key, value in totals.items():
        element.set(key, str(value))


def _case(run: RunResult, scenario: ScenarioResult) -> ET.Element:
    case = ET.Element("testcase", classname=_clean(scenario.feature_file), name=_clean(scenario.scenario))
    case.set("time", _seconds(scenario.duration_s))
    text = problem(scenario) or ""
    status = scenario.status
    if status == "failed" or (status == "warning" and run.strict):
        message = headline(scenario) if scenario.detail is not None else first_line(text)
        _failure(case, scenario, message, "failure" if status == "failed" else "warning", text)
    elif status == "xpassed":
        _failure(case, scenario, text, "xpass", text)
    elif status == "warning":
        ET.SubElement(case, "system-out").text = _clean(f"WARN (SHOULD, not failing the run): {text}")
    elif status == "xfailed":
        reason = scenario.expected_failure_reason or "no reason given"
        skipped = ET.SubElement(case, "skipped", type="xfail", message=_clean(f"expected failure: {reason}"))
        skipped.text = _clean(text)
    elif status == "skipped":
        ET.SubElement(case, "skipped", message=_clean(first_line(text) or "skipped"))
    elif status == "notrun":
        ET.SubElement(case, "error", type="notrun", message=_clean(first_line(text) or "not run")).text = _clean(text)
    return case


def _statements(properties: ET.Element, scenarios: list[ScenarioResult]) -> None:
    """The Chinese statement of each requirement the suite's scenarios prove, as suite properties."""
    chinese = {r.id: r.statement_zh for r in ccweb_spec.requirements()}
    proved = dict.fromkeys(rid for s in scenarios for rid in s.requirements if chinese.get(rid))
    for rid in proved:
        ET.SubElement(properties, "property", name="statement_zh", value=_clean(f"{rid}: {chinese[rid]}"))


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


def _failure(case: ET.Element, scenario: ScenarioResult, message: str, kind: str, text: str) -> None:
    hint = scenario_hint(scenario)
    if hint is not None:
        message = f"{message} | hint: {hint}"
    failure = ET.SubElement(case, "failure", message=_clean(message[:_MESSAGE_LIMIT]), type=kind)
    charged = scenario.failed_requirements() or scenario.requirements
    block = [*scenario_block(scenario), ""] if scenario.detail is not None else []
    body = [*block, text, "", f"requirements: {', '.join(charged)} ({scenario.level})"]
    unreached = unreached_requirements(scenario)
    if unreached:
        body.append(f"not reached: {', '.join(unreached)} (the scenario stopped before any check of them)")
    if scenario.reproducer is not None and scenario.detail is None:  # the block holds it otherwise
        body.append(f"rerun: {scenario.reproducer}")
    if scenario.transcript:
        body += ["", "transcript:", format_transcript(scenario.transcript)]
    failure.text = _clean("\n".join(body))
