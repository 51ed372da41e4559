"""Do the five reports of one conformance run name the same failed and warned requirements?

Usage: python reports_agree.py CONSOLE.txt RUN.json RUN.xml RUN.cucumber.json RUN.md

Reads the console summary (English), the JSON ``requirements[].status``, the JUnit and
Cucumber failures (the requirements each failed scenario is charged to) and the Markdown
requirement table; prints each format's FAIL and WARN sets and exits 0 when they agree, 1
when they do not, 2 on unusable input. Standard library only: it runs under any Python 3.11.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

Sets = dict[str, set[str]]

_CONSOLE_ROW = re.compile(r"^  (FAIL|WARN)\s+([A-Z]+-\d+)\s+(MUST|SHOULD)\s*$")
_MARKDOWN_ROW = re.compile(r"^\| ([A-Z]+-\d+) \| (MUST|SHOULD) \| ([^|]+) \|")
_JUNIT_CHARGE = re.compile(r"^requirements: (.+) \((MUST|SHOULD)\)$", re.MULTILINE)
_CHARGED_LINE = re.compile(r"^([A-Z]+-\d+) \((MUST|SHOULD)\): ")
_JUNIT_WARNING = "WARN (SHOULD, not failing the run): "


def _empty() -> Sets:
    return {"FAIL": set(), "WARN": set()}


def from_console(text: str) -> Sets:
    """The FAIL and WARN rows of the console's requirement table."""
    found = _empty()
    for line in text.splitlines():
        if match := _CONSOLE_ROW.match(line):
            found[match[1]].add(match[2])
    return found


def from_json(report: dict[str, Any]) -> Sets:
    """requirements[].status failed / warning."""
    found = _empty()
    for requirement in report["requirements"]:
        if requirement["status"] == "failed":
            found["FAIL"].add(requirement["id"])
        elif requirement["status"] == "warning":
            found["WARN"].add(requirement["id"])
    return found


def from_markdown(text: str) -> Sets:
    """The requirement table's fail and warning rows."""
    found = _empty()
    for line in text.splitlines():
        if match := _MARKDOWN_ROW.match(line):
            status = match[3].strip()
            if status.endswith("fail"):
                found["FAIL"].add(match[1])
            elif status.endswith("warning"):
                found["WARN"].add(match[1])
    return found


def from_junit(path: Path) -> Sets:
    """The ``requirements:`` line of every <failure> (FAIL); the opening lines of a warning's note (WARN)."""
    found = _empty()
    for case in ET.parse(path).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is not None:
            for match in _JUNIT_CHARGE.finditer(failure.text or ""):
                found["FAIL"].update(r.strip() for r in match[1].split(","))
            continue
        out = case.find("system-out")
        if out is not None and (out.text or "").startswith(_JUNIT_WARNING):
            found["WARN"] |= _leading_charges((out.text or "").removeprefix(_JUNIT_WARNING).splitlines())
    return found


def _leading_charges(lines: list[str]) -> set[str]:
    """The ``ID (LEVEL): statement`` lines that open a scenario's message: the charged requirements."""
    charged: set[str] = set()
    for line in lines:
        match = _CHARGED_LINE.match(line)
        if match is None:
            break
        charged.add(match[1])
    return charged


def _charged(message: str) -> set[str]:
    """The charged requirements of a Cucumber step message: after its headline paragraph."""
    _, _, rest = message.partition("\n\n")
    return _leading_charges(rest.splitlines())


def from_cucumber(features: list[dict[str, Any]]) -> Sets:
    """A failed step's message (FAIL); a pending one is a warning (WARN)."""
    found = _empty()
    for feature in features:
        for element in feature["elements"]:
            for step in [*element.get("before", []), *element["steps"], *element.get("after", [])]:
                result = step["result"]
                key = {"failed": "FAIL", "pending": "WARN"}.get(result["status"])
                if key is not None:
                    found[key] |= _charged(result.get("error_message", ""))
    return found


def main(argv: list[str]) -> int:
    """Print each format's sets; 0 when all agree."""
    if len(argv) != 5:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    console, report, junit, cucumber, markdown = (Path(a) for a in argv)
    try:
        sets = {
            "console": from_console(console.read_text(encoding="utf-8")),
            "json": from_json(json.loads(report.read_text(encoding="utf-8"))),
            "junit": from_junit(junit),
            "cucumber": from_cucumber(json.loads(cucumber.read_text(encoding="utf-8"))),
            "markdown": from_markdown(markdown.read_text(encoding="utf-8")),
        }
    except (OSError, ValueError, KeyError, ET.ParseError) as error:
        print(f"reports_agree: cannot read the reports: {error}", file=sys.stderr)
        return 2
    for name, found in sets.items():
        print(f"{name:9} FAIL {sorted(found['FAIL'])}  WARN {sorted(found['WARN'])}")
    first = next(iter(sets.values()))
    agree = all(found == first for found in sets.values())
    print("agree" if agree else "DISAGREE")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
