"""A small hand-built RunResult with one scenario per status, shared by the report tests."""

from __future__ import annotations

import json

from ccweb_conformance.reports.model import RunResult, ScenarioResult, StepResult
from ccweb_conformance.transport.exchange import Exchange

REQUEST = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "ccweb_list_user_inputs"}}
RESPONSE = {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": False}}
FAIL_MESSAGE = "SEL-6: expected 15 inputs, got 16\nsent: tools/call {}\nexpected: the latest 15"


def scenario(feature_file: str, name: str, reqs: tuple[str, ...], status: str, **extra: object) -> ScenarioResult:
    level = "SHOULD" if all(r in {"TOOL-4", "TOOL-5", "PLC-3", "PROTO-3"} for r in reqs) else "MUST"
    return ScenarioResult(
        feature=feature_file.removesuffix(".feature").split("_", 1)[1].replace("_", " ").capitalize(),
        feature_file=feature_file,
        scenario=name,
        line=10,
        tags=(*reqs, "smoke"),
        requirements=reqs,
        level=level,  # type: ignore[arg-type]
        status=status,  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )


def steps(*statuses: str) -> list[StepResult]:
    keywords = ("Given", "When", "Then", "And")
    return [
        StepResult(keywords[i], f"step {i + 1}", status, 0.25)  # type: ignore[arg-type]
        for i, status in enumerate(statuses)
    ]


def make_run(strict: bool = False) -> RunResult:
    exchange = Exchange(REQUEST, RESPONSE, received_text=json.dumps(RESPONSE), elapsed_ms=1.5, violations=["bad"])
    return RunResult(
        kit_version="0.1.0",
        spec_version="1.0.0",
        target="stdio: node server.js",
        transport="stdio",
        protocol_version="2025-06-18",
        started_at="2026-12-03T10:10:00Z",
        duration_s=3.214,
        strict=strict,
        scenarios=[
            scenario(
                "ac01_tool_definition.feature",
                "The tool is listed",
                ("TOOL-1",),
                "passed",
                duration_s=0.5,
                steps=steps("passed", "passed"),
            ),
            scenario(
                "ac03_latest_fifteen.feature",
                "Only the latest 15 inputs",
                ("SEL-6", "SEL-7"),
                "failed",
                message=FAIL_MESSAGE,
                duration_s=0.75,
                transcript=[exchange],
                steps=steps("passed", "passed", "failed"),
            ),
            scenario(
                "ac01_tool_definition.feature",
                "The tool is read-only",
                ("TOOL-4",),
                "warning",
                message="TOOL-4: annotations.readOnlyHint is missing",
                steps=steps("passed", "failed"),
            ),
            scenario(
                "ac07_unicode.feature",
                "An emoji outside the BMP counts as one",
                ("UNI-1",),
                "xfailed",
                message="UNI-1: expected 1, got 2",
                expected_failure_reason="we count UTF-16 units until #123",
                steps=steps("passed", "failed"),
            ),
            scenario(
                "ac07_unicode.feature",
                "A flag counts as two",
                ("UNI-2",),
                "xpassed",
                expected_failure_reason="flags are broken",
                steps=steps("passed", "passed"),
            ),
            scenario(
                "ac02_which_conversation.feature",
                "The HTTP header binds the source",
                ("SRC-2",),
                "skipped",
                message="needs the HTTP transport",
                steps=steps("skipped"),
            ),
        ],
    )
