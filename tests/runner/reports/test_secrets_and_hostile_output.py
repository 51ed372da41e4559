"""No secret in any output of a run, and server output made safe by each format wherever it is shown."""

from __future__ import annotations

import dataclasses
import json
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from paths import REPO
from runner.reports.sample_run import scenario

from ccweb_conformance.commands.report_formats import write_reports
from ccweb_conformance.config import load_config
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.reports.console import render_summary
from ccweb_conformance.reports.model import FailureDetail, RunResult, StepResult
from ccweb_conformance.reports.neutral import json_escapes, neutral, neutralise, xml_escapes
from ccweb_conformance.reports.redact import redacted
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.values import resolve_values, target_of

LEAKY = REPO / "tests" / "runner" / "fakes" / "leaky_http_server.py"
ENV_SECRET = "s3cr3t-env-value-1f2e"
BEARER = "b3arer-token-9c8d7e"
REPORTS = ("json", "junitxml", "markdown", "cucumberjson")


@pytest.mark.parametrize(
    ("text", "safe"),
    [
        ("plain text\n\twith a tab", "plain text\n\twith a tab"),
        ("\x1b[2J\x1b[32mPASSED\x1b[0m", "\\x1b[2J\\x1b[32mPASSED\\x1b[0m"),
        ("\x1b]8;;https://e/\x07x\x1b]8;;\x07", "\\x1b]8;;https://e/\\x07x\\x1b]8;;\\x07"),
        ("a\rb\x85c\x9bd\x7f", "a\\x0db\\x85c\\x9bd\\x7f"),
        ("bidi \u202egnp.exe\u2066 \u2028", "bidi \\u202egnp.exe\\u2066 \\u2028"),
        ("::error::x", "\\x3a:error::x"),
        ("ok\n   ::add-mask::y\n", "ok\n   \\x3a:add-mask::y\n"),
        ("\t::warning::z", "\t\\x3a:warning::z"),
        ("##[error]x\n##vso[task.complete]y", "\\x23#[error]x\n\\x23#vso[task.complete]y"),
        ("mid-line ##[group] and a ##vso[x]", "mid-line \\x23#[group] and a \\x23#vso[x]"),
        ("\u2003::warning::w\n\u3000 ::x", "\u2003\\x3a:warning::w\n\u3000 \\x3a:x"),
        ("#[at the start] ###[x", "\\x23[at the start] #\\x23#[x"),
        ("mid-line ::error:: and ## [x] stay", "mid-line ::error:: and ## [x] stay"),
        ("lone \udc80 surrogate", "lone \udc80 surrogate"),
    ],
)
def test_neutralise(text: str, safe: str) -> None:
    assert neutralise(text) == safe


def test_json_and_xml_use_their_own_escapes_and_read_back_unchanged() -> None:
    text = "a ##[group]\n \u2003::warning::w ##vso[x] \x9b \u202e"
    escaped = json_escapes(json.dumps({"k": text}, ensure_ascii=False))
    assert escaped == '{"k": "a \\u0023#[group]\\n \u2003::warning::w \\u0023#vso[x] \\u009b \\u202e"}'
    assert json.loads(escaped) == {"k": text}
    document = xml_escapes(ET.tostring(ET.fromstring(f"<r>{text}</r>"), encoding="unicode"))
    assert document == "<r>a &#35;#[group]\n \u2003&#58;:warning::w &#35;#vso[x] &#155; &#8238;</r>"
    assert ET.fromstring(document).text == text


def test_neutral_copies_only_what_changes() -> None:
    clean = {"a": ["b", ("c",)]}
    assert neutral(clean) == clean
    assert neutral({"k\x1b": ["::x", 1, None]}) == {"k\\x1b": ["\\x3a:x", 1, None]}


def test_env_values_are_secrets_and_redacted_when_echoed() -> None:
    options = RunnerOptions(http_cmd="srv --port {port}", url="http://127.0.0.1:{port}/mcp",
                            env=("TOKEN=abcdefgh", "SHORT=ab"), header=("Authorization: Bearer xyz12345",))  # fmt: skip
    assert target_of(options).secrets == ("Bearer xyz12345", "xyz12345", "abcdefgh")  # SHORT: no credential's name
    from ccweb_conformance.fuzz.phase import replay_command  # noqa: PLC0415 (hypothesis)
    from ccweb_conformance.fuzz.settings import FuzzSettings  # noqa: PLC0415 (beside it)

    assert replay_command(target_of(options), FuzzSettings(500, 1)) == (
        "ccweb-conformance run --http-cmd 'srv --port {port}' --url 'http://127.0.0.1:{port}/mcp' "
        "--header 'Authorization: ***' --env 'TOKEN=***' --env 'SHORT=***' --fuzz 500 --seed 1"
        "  # *** stands for the values of --header Authorization, --env TOKEN, --env SHORT: supply them again"
    )


def test_a_run_failing_in_the_fuzz_phase_leaks_no_secret_and_no_live_ci_command(tmp_path: Path) -> None:
    server = f"{shlex.quote(sys.executable)} {LEAKY} --sessions-dir {{sessions_dir}} --port {{port}}"
    paths = {name: tmp_path / f"report.{name}" for name in REPORTS}
    command = [
        sys.executable, "-m", "ccweb_conformance.cli", "run", "-v",
        "--http-cmd", server, "--url", "http://127.0.0.1:{port}/mcp",
        "--env", f"SECRET={ENV_SECRET}", "--header", f"Authorization: Bearer {BEARER}",
        "--tags", "TOOL-1", "--fuzz", "500", "--seed", "1",
        *(part for name in REPORTS for part in (f"--{name}", str(paths[name]))),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, timeout=300, check=False)
    outputs = {"stdout": done.stdout, "stderr": done.stderr} | {n: p.read_bytes() for n, p in paths.items()}
    assert done.returncode == 1, done.stdout.decode(errors="replace")[-3000:]
    assert b"differential fuzzing: the implementation differs from the reference core" in done.stdout
    assert b"replay: ccweb-conformance run --http-cmd" in done.stdout
    assert b"--env 'SECRET=***' " in done.stdout
    assert b"# *** stands for the values of --header Authorization, --env SECRET: supply them again" in done.stdout
    for name, data in outputs.items():
        assert ENV_SECRET.encode() not in data, name
        assert BEARER.encode() not in data, name
        assert b"\x1b]" not in data, name  # no OSC sequence (links) from the server
        assert b"\x1b[2J" not in data, name  # no clear screen
        for line in data.decode("utf-8", "replace").splitlines():
            stripped = line.strip()
            assert not stripped.startswith(("::", "##[", "##vso[")), (name, line)


def test_a_server_that_dies_at_start_up_has_its_stderr_neutralised_and_scrubbed(tmp_path: Path) -> None:
    stdio = f"{shlex.quote(sys.executable)} {LEAKY} exit"
    command = [sys.executable, "-m", "ccweb_conformance.cli", "run", "-v", "--stdio", stdio]
    command += ["--env", f"SECRET={ENV_SECRET}", "--json", str(tmp_path / "r.json")]
    done = subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert done.returncode == 2
    started, line = done.stderr.decode().splitlines()  # what starts, said at once; then the one error line
    assert started.startswith("ccweb-conformance: testing the stdio server ")
    assert ENV_SECRET not in started
    assert line.startswith("ccweb-conformance: error: ")
    assert (  # one line: the commands are mid-line, so no longer commands; the escapes are shown; then the hint
        "stderr: leaky: token *** | ::error title=owned::owned | ::add-mask::x | \\x23#[error]owned"
        " | \\x23#vso[task.setvariable variable=x]1 | \\x1b[2J\\x1b[H\\x1b[32mPASSED\\x1b[0m"
        " \\x1b]8;;https://evil.example/\\x1b\\click\\x1b]8;;\\x1b\\"
        "; hint: the server stopped before answering initialize"
    ) in line
    assert ENV_SECRET not in line


def hostile_run() -> RunResult:
    message = f"server said:\n::error::owned\n  ##vso[task.complete]x\n{HOSTILE_TEXT}"
    failed = scenario("ac03_latest_fifteen.feature", "Fifteen \x1b[31mred", ("SEL-6",), "failed", message=message)
    failed.transcript = [Exchange(None, None, received_text=f"garbage {HOSTILE_TEXT}\n::warning::x")]
    return RunResult("0.1.0", "1.0.0", "stdio: srv", "stdio", None, "2026-01-01T00:00:00Z", 1.0, [failed])


HOSTILE_TEXT = "\x1b[2J\x1b]8;;https://e/\x07link\x1b]8;;\x07 \u202e"


@pytest.mark.parametrize("color", [True, False])
def test_the_verbose_console_shows_server_text_neutralised(color: bool) -> None:
    text = render_summary(hostile_run(), color=color, verbose=True)
    assert "\\x1b[2J\\x1b]8;;https://e/\\x07link\\x1b]8;;\\x07 \\u202e" in text
    assert "Fifteen \\x1b[31mred" in text
    visible = text.replace("\x1b[", "")  # the runner's own colours (SGR) are the only escapes left
    assert "\x1b" not in visible and "\u202e" not in text and "\x07" not in text
    assert not [line for line in text.splitlines() if line.strip().startswith(("::", "##[", "##vso["))]


def test_the_console_reads_the_neutral_copy_it_is_given_and_says_the_same_as_when_it_makes_one() -> None:
    run = hostile_run()
    safe = neutral(run)
    assert render_summary(run, color=False, verbose=True, safe=safe) == render_summary(run, color=False, verbose=True)
    given = dataclasses.replace(safe, scenarios=[dataclasses.replace(safe.scenarios[0], scenario="as given")])
    assert "as given" in render_summary(run, color=False, verbose=True, safe=given)  # no second walk of the run


def test_every_report_shows_server_text_safely(tmp_path: Path) -> None:
    paths = {name: tmp_path / f"report.{name}" for name in REPORTS}
    assert write_reports(hostile_run(), resolve_values(RunnerOptions(**paths)).reports, "run", language="en")
    for name, path in paths.items():
        text = path.read_text(encoding="utf-8")
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text, name
        assert not [line for line in text.splitlines() if line.strip().startswith(("::", "##[", "##vso["))], name
        assert "x1b[2J" in text or "u001b[2J" in text, name  # shown, escaped by the format


SECRET_OPTIONS = RunnerOptions(
    url="http://user:pa55word@127.0.0.1:1/mcp",
    header=("Cookie: c=oatmeal-1", "X-Api-Key: k-123456", "X-Team: blue-team", "Proxy-Authorization: Basic dXNlcg=="),
    env=("CI=true", "VERBOSE=false", "MODE=content", "DB_PASSWORD=hunter22", "DATABASE_URL=postgres://u:p@h/db",
         "PLAIN=visible-value", "Api_Key=ab"),
    secret_env=("PLAIN",),
)  # fmt: skip


def test_secrets_are_credential_headers_credential_env_names_url_user_information_and_secret_env() -> None:
    assert target_of(SECRET_OPTIONS).secrets == (
        "c=oatmeal-1", "k-123456", "Basic dXNlcg==", "dXNlcg==", "hunter22", "visible-value",
        "user:pa55word", "pa55word", "u:p",
    )  # fmt: skip


def test_redaction_is_in_the_models_outside_text_and_leaves_the_kits_words() -> None:
    run = hostile_run()
    run.target = "http: http://user:pa55word@127.0.0.1:1/mcp"
    run.scenarios[0].message = "got hunter22 and content and true"
    run.scenarios[0].steps = [StepResult("When", "a call with hunter22", "failed")]
    run.scenarios[0].detail = FailureDetail("hunter22 differs", expected=["hunter22"], actual=["hunter22"])
    run.scenarios[0].transcript = [Exchange({"k": "u:p"}, {"echo": ["visible-value"]}, received_text="x hunter22")]
    shown = redacted(run, target_of(SECRET_OPTIONS).secrets)
    assert shown.target == "http: http://***@127.0.0.1:1/mcp"
    assert shown.scenarios[0].message == "got *** and content and true"
    assert shown.scenarios[0].steps == run.scenarios[0].steps  # the kit's own words
    assert shown.scenarios[0].detail == FailureDetail("hunter22 differs", expected=["hunter22"], actual=["***"])
    exchange = shown.scenarios[0].transcript[0]
    assert (exchange.request, exchange.response, exchange.received_text) == ({"k": "***"}, {"echo": ["***"]}, "x ***")
    assert run.scenarios[0].message == "got hunter22 and content and true"  # a copy: the run is unchanged


def test_the_rerun_line_hides_the_urls_password() -> None:
    options = RunnerOptions(url="http://user:pa55word@127.0.0.1:1/mcp", sessions_dir=Path("/s"))
    line = target_of(options).rerun_line("-k", "k")
    assert line == (
        "ccweb-conformance run --url 'http://***@127.0.0.1:1/mcp' --sessions-dir /s -k k"
        "  # *** stands for the values of --url: supply them again"
    )


def test_a_bad_urls_error_hides_its_password() -> None:
    problems = RunnerOptions(url="ftp://user:pa55word@h/x", http_cmd="srv").problems()
    assert "--url 'ftp://***@h/x' is not an http:// or https:// URL" in problems


def test_secret_env_is_read_from_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "ccweb-conformance.toml").write_text('secret-env = ["PLAIN"]\n', encoding="utf-8")
    assert load_config(tmp_path, "run")[1] == {"secret_env": ["PLAIN"]}
