"""What the options resolve to (``values.py``): each part built once, from the option table."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.values import FuzzRequest, ReportRequest, ReportRequests, Selection, resolve_values

OPTIONS = RunnerOptions(
    http_cmd="srv --port {port}", url="http://user:pa55word@127.0.0.1:{port}/mcp", sessions_dir=Path("/s"),
    header=("Authorization: Bearer t0ken-1",), env=("DB_PASSWORD=hunter22", "CI=true"), protocol="legacy",
    timeout=5.0, tags="AC-7", keyword="emoji", strict=True, fuzz=20, seed=3, markdown=Path("m.md"),
    json=Path("-"), cucumber_flavour="jvm", max_time=90.0, stop_after=2, lang="zh-CN",
)  # fmt: skip


def test_each_value_holds_its_options() -> None:
    values = resolve_values(OPTIONS)
    target = values.target
    assert (target.http_cmd, target.url, target.sessions_dir, target.protocol, target.timeout) == (
        "srv --port {port}", "http://user:pa55word@127.0.0.1:{port}/mcp", Path("/s"), "legacy", 5.0
    )
    assert (dict(target.headers), dict(target.env)) == (
        {"Authorization": "Bearer t0ken-1"}, {"DB_PASSWORD": "hunter22", "CI": "true"}
    )
    assert values.selection == Selection(tags="AC-7", keyword="emoji", strict=True)
    assert values.fuzz == FuzzRequest(20, 3, None)
    assert values.reports == ReportRequests(  # table order: --json before --markdown
        (ReportRequest("json", "--json", Path("-")), ReportRequest("markdown", "--markdown", Path("m.md"))), "jvm"
    )
    assert (values.lang, values.max_time, values.stop_after, values.verbose) == ("zh-CN", 90.0, 2, False)


def test_the_target_renders_its_words_and_finds_its_secrets_once() -> None:
    target = resolve_values(OPTIONS).target
    assert target.secrets == ("Bearer t0ken-1", "t0ken-1", "hunter22", "user:pa55word", "pa55word")
    assert target.target_words == (
        "--http-cmd", "srv --port {port}", "--url", "http://***@127.0.0.1:{port}/mcp", "--sessions-dir", "/s",
        "--header", "Authorization: ***", "--env", "DB_PASSWORD=***", "--env", "CI=***",
    )  # fmt: skip
    assert target.words == (*target.target_words, "--protocol", "legacy", "--timeout", "5", "--max-time", "90",
                            "--stop-after", "2")  # fmt: skip
    assert target.withheld == ("--header Authorization", "--env DB_PASSWORD", "--env CI", "--url")
    assert target.described() == "the HTTP server 'srv --port {port}' at http://***@127.0.0.1:{port}/mcp"


def test_no_secret_shows_in_a_values_repr() -> None:
    """A value printed whole (a debugger, an assertion's message) shows no secret."""
    shown = repr(resolve_values(OPTIONS))
    assert [secret for secret in ("t0ken-1", "hunter22", "pa55word") if secret in shown] == []
    assert "http_cmd='srv --port {port}'" in shown
