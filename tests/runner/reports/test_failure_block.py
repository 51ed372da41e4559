"""The console's failure block: shown without -v, with differences, the stored content and a hint."""

from __future__ import annotations

import subprocess

import pytest
from runner.cli.expected_failures_runs import forked_runs
from runner.reports.mutant_console import block, failing_lines

from ccweb_conformance.reports.diff import MISSING, Difference, differences
from ccweb_conformance.reports.hints import FailureFacts, hint_for, hints

RUNS = {
    "utf16_units": {"argv": ["run", "--in-process", "--tags", "AC-7"], "mutants": ["utf16_units"]},
    "python_strip_whitespace": {"argv": ["run", "--in-process", "--tags", "SEL-2"],
                                "mutants": ["python_strip_whitespace"]},
    "unknown_tool_method_not_found": {"argv": ["run", "--in-process", "--tags", "ERR-3"],
                                      "variants": ["unknown_tool_method_not_found"]},
}  # fmt: skip
"""The module's in-process runs: two mutants' and one variant's."""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    """Every run of :data:`RUNS`, forked from one process that imported the kit once, two at a time (the
    expected-failures runs' batch)."""
    return forked_runs(tmp_path_factory.mktemp("failure-block"), RUNS)


def test_a_utf16_bug_shows_expected_and_got_the_stored_content_and_the_hint(runs):
    lines = failing_lines(runs["utf16_units"])
    assert "Failures (9)" in lines
    assert block(lines, "FAIL ac07_unicode.feature::Characters outside the BMP count as one [😀-1]") == [
        "FAIL ac07_unicode.feature::Characters outside the BMP count as one [😀-1]",
        "    requirement  UNI-1 (MUST): Lengths are Unicode code points: a character outside the BMP (an emoji)"
        " counts 1 and is never split into UTF-16 halves when truncating.",
        "    check        items differ",
        "    differences  $.items[0].contentChars: expected 1, got 2",
        "                 $.items[0].originalChars: expected 1, got 2",
        '    sent         tools/call {"conversationId": "UUID"}',
        "    source       none bound",
        "    stored       alpha = UUID, messages: 1",
        '                   [0] user "😀" (U+1F600; code points: 1, UTF-16 units: 2)',
        "    hint         lengths look like UTF-16 code units (JavaScript's text.length): count code points,"
        ' e.g. [...text].length, and cut with Array.from(text).slice(0, n).join("")',
        "    rerun        ccweb-conformance run --in-process"
        " -k 'test_characters_outside_the_bmp_count_as_one[ and -1]'",
        "    alone        reproduced alone: run again by itself on a fresh server in the runner (--in-process), it"
        " failed UNI-1 at the same check",
    ]
    truncation = block(lines, "FAIL ac07_unicode.feature::Truncation keeps whole emoji")
    assert truncation[3] == (
        '    differences  $.items[0].content: expected "😀😀😀" (U+1F600), got "😀\\ud83d" (U+1F600 U+D83D)'
    )
    # the summary line of the scenario names the check, not the requirement sentence again
    assert "      FAIL ac07_unicode.feature::Truncation keeps whole emoji: items differ" in lines
    # where the reports are comes before the totals: the totals line is the last, as pytest ends
    assert lines[-3:-1] == ["whole transcripts: run with -v; reports for CI: --junitxml FILE, --json FILE", ""]
    assert "4 passed, 9 failed in" in lines[-1]


def test_a_strip_bug_gets_the_whitespace_hint(runs):
    lines = failing_lines(runs["python_strip_whitespace"])
    hints_shown = [line for line in lines if line.startswith("    hint ")]
    assert hints_shown
    assert all("as Python's str.strip() or a \\s regex does" in hint for hint in hints_shown)


ERR4_CHECK = "ERR-4: the unknown tool was answered with the JSON-RPC error {code}, not -32602"
PLC1_CHECK = "PLC-1: the result object is neither structuredContent nor the JSON text of a text block"
PLC4_CHECK = "PLC-4: the tool declares an outputSchema, so every result must carry structuredContent (text-only ...)"


def test_an_unknown_tool_answered_32601_passes_with_a_warning_that_names_fastmcp(runs):
    """D-9 as amended: -32601 (fastmcp for TypeScript) meets ERR-3; the ERR-4 warning says where it comes from."""
    done = runs["unknown_tool_method_not_found"]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    head = "WARN errors.feature::An unknown tool is a JSON-RPC error, never a result, and the server keeps serving"
    warned = [line for line in lines if line.startswith(head)]
    names = ("ccweb_list_user_input", "CCWEB_LIST_USER_INPUTS", "list_user_inputs")
    assert warned == [f"{head} [{name}]" for name in names]
    shown = block(lines, warned[0])
    assert shown[1] == (
        "    requirement  ERR-4 (SHOULD): A call to an unknown tool name is answered with the JSON-RPC error -32602"
        " (invalid params), as MCP specifies (fastmcp for TypeScript answers -32601 from its own handler, which"
        " meets ERR-3 but not this)."
    )
    assert shown[2] == f"    check        {ERR4_CHECK.format(code=-32601)}"
    assert shown[-1] == (
        "    rerun        ccweb-conformance run --in-process -k"
        " 'test_an_unknown_tool_is_a_jsonrpc_error_never_a_result_and_the_server_keeps_serving[ccweb_list_user_input]'"
    )
    assert shown[-2] == (
        "    hint         -32601 is what fastmcp for TypeScript answers for an unknown tool from its own handler,"
        " before your code runs: that meets ERR-3 (a MUST), and this SHOULD is only a warning; to meet it too,"
        " answer -32602 (invalid params), as MCP specifies, where your framework lets you"
    )
    verdicts = [line for line in lines if line.startswith(("  PASS ", "  WARN ", "  FAIL "))]
    assert verdicts == ["  PASS      ERR-3", "  WARN      ERR-4     SHOULD", "  PASS      PROTO-2"]
    assert lines[-1].startswith("0 passed, 0 failed, 3 warnings in ")


def facts(*found: Difference, requirements: tuple[str, ...] = (), check: str = "", message: str = "",
          stored: tuple[str, ...] = (), scenario: str = "") -> FailureFacts:
    return FailureFacts(requirements, check, message, found, stored, scenario)


MIB_SCENARIO = "A request of 1 MiB is answered or refused, and the server keeps serving"
OUT_OF_BOUNDS = "Values outside the bounds are rejected, not clamped"


@pytest.mark.parametrize(
    ("case", "expected_hint"),
    [
        (facts(Difference("$[0].contentChars", 1, 2), stored=("😀",)), "utf16-units"),
        (facts(Difference("$[0].contentChars", 1, 2), stored=("ab",)), None),  # no emoji stored: no hint
        (facts(Difference("$[0].content", "😀", "\ud83d")), "utf16-cut"),
        (facts(Difference("$", [1, 2], [1], shape=True), stored=("😀😀",)), "utf16-budget"),
        (facts(Difference("$[0].content", "  a  ", "a")), "content-trimmed"),
        (facts(Difference("$", [1, 2], [1], shape=True), stored=("\x1c",)), "strip-not-trim"),
        (facts(message="the server wrote a line that is not JSON: 'listening'"), "stdout-logging"),
        (facts(message="tools/call: the server wrote two messages into one line, as writes to stdout from two threads"),
         "interleaved-writes"),
        (facts(requirements=("PROTO-2",), check="the server closed its output", scenario=MIB_SCENARIO),
         "go-scanner-line-limit"),
        (facts(requirements=("PROTO-2",), check="the server closed its output",
               scenario="The server keeps serving after errors"), None),
        (facts(message="initialize: HTTP 200 with Content-Type 'text/plain; charset=utf-8', not JSON or SSE"),
         "go-plain-text-content-type"),
        (facts(message="initialize: HTTP 200 with Content-Type 'text/html', not JSON or SSE"), None),
        (facts(Difference("$.items", [], [1]), requirements=("STO-4", "SEL-1"),
               scenario="Member names match exactly, so Messages, Role and Content are other members"),
         "go-member-names-without-case"),
        (facts(requirements=("ARG-2",), scenario=f"{OUT_OF_BOUNDS} [limit-4294967311]"), "go-int32-wrap"),
        (facts(requirements=("ARG-2",), scenario=f"{OUT_OF_BOUNDS} [limit-51]"), None),
        (facts(message="initialize: a response with id 102 while waiting for id 2"), "handshake-wrong-id"),
        (facts(message="the process exited with code 3 at start-up; stderr: fatal"), "exited-at-start-up"),
        (facts(message="server: initialize: no response within 8 s"), "never-answered"),
        (facts(message="server: tools/list: no response within 8 s"), None),
        (facts(requirements=("REG-2",)), "cache-mtime-size"),
        (facts(requirements=("SRC-7",), check="expected the error conversation_not_found"), "prefix-path-check"),
        (facts(requirements=("SRC-7",), check="the call failed where the contract requires a success"), None),
        (facts(Difference("$.hasMore", True, MISSING)), None),
        (facts(requirements=("ARG-8",), check="ARG-8: rejected with -32603, not -32602"), "sdk-internal-error"),
        (facts(requirements=("ARG-8",), check="ARG-8: rejected with -32600, not -32602"), None),
        (facts(requirements=("ERR-4",), check=ERR4_CHECK.format(code=-32601)), "fastmcp-ts-method-not-found"),
        (facts(requirements=("ERR-4",), check=ERR4_CHECK.format(code=-32603)), None),
        (facts(requirements=("ERR-3",), check="ERR-3: an unknown tool must be answered with a JSON-RPC error"),
         "unknown-tool-as-result"),
        (facts(check=PLC1_CHECK, message=f"{PLC1_CHECK}\n  actual: {{\"text\": \"Input validation error: ...\"}}"),
         "sdk-v2-validation-text"),
        (facts(check=PLC1_CHECK, message=f"{PLC1_CHECK}\n  actual: {{\"text\": \"Internal error\"}}"), None),
        (facts(check=PLC4_CHECK, message=f'{PLC4_CHECK}\n  actual: {{"content": [], "isError": true}}'),
         "fastmcp-tool-error-text"),
        (facts(check=PLC4_CHECK, message=f'{PLC4_CHECK}\n  actual: {{"content": [], "isError": false}}'), None),
        (facts(Difference("$.ok", False, True), requirements=("ARG-3",),
               check="expected the error invalid_arguments"), "lax-coercion"),
        (facts(Difference("$.error.code", "invalid_arguments", "conversation_not_found"), requirements=("ARG-3",),
               check="expected the error invalid_arguments"), None),
    ],
)
def test_hints_match_their_mistakes_only(case, expected_hint):
    found = hint_for(case)
    assert (found.id if found else None) == expected_hint


def test_every_hint_is_one_line_with_an_id():
    assert [h.id for h in hints()] == [
        "utf16-units", "utf16-cut", "utf16-budget", "content-trimmed", "strip-not-trim",
        "go-scanner-line-limit", "go-plain-text-content-type", "go-member-names-without-case", "go-int32-wrap",
        "interleaved-writes", "stdout-logging", "handshake-wrong-id", "exited-at-start-up", "never-answered",
        "cache-mtime-size", "prefix-path-check", "sdk-internal-error", "fastmcp-ts-method-not-found",
        "sdk-v2-validation-text", "fastmcp-tool-error-text", "lax-coercion", "unknown-tool-as-result",
    ]
    assert all("\n" not in h.text and len(h.text) < 300 for h in hints())


def test_differences_keep_values_and_allow_extra_members():
    assert differences({"a": 1, "b": [1, 2]}, {"a": 2, "b": [1], "extra": 0}) == [
        Difference("$.a", 1, 2),
        Difference("$.b", [1, 2], [1], shape=True),
    ]
    assert differences({"a": 1}, {}) == [Difference("$.a", 1, MISSING)]
    assert differences({"n": 15}, {"n": 15.0}) == []
    assert differences({"t": True}, {"t": 1}) == [Difference("$.t", True, 1)]
