"""A failure rerun alone (commands/rerun_alone.py), with the suite replaced: what is compared, what is fresh, when
nothing is rerun, and how each outcome is worded (reports/rerun_alone.py)."""

from __future__ import annotations

from pathlib import Path

from ccweb_conformance.commands.rerun_alone import rerun_alone, rerun_failures
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.reports.model import FailureDetail, Rerun, ScenarioResult
from ccweb_conformance.reports.rerun_alone import rerun_line
from ccweb_conformance.suite.collector import ResultCollector
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import RunValues, resolve_values


def scenario(status: str = "failed", *, check: str = "items differ", charged: tuple[str, ...] = ("UNI-1",),
             name: str = "Truncation keeps whole emoji", keyword: str | None = "test_truncation") -> ScenarioResult:
    return ScenarioResult(
        feature="Unicode", feature_file="ac07_unicode.feature", scenario=name, line=3, tags=("UNI-1",),
        requirements=("UNI-1",), level="MUST", status=status,  # type: ignore[arg-type]
        detail=FailureDetail(check) if status == "failed" else None, charged=charged, keyword=keyword,
        duration_s=0.5,
    )


class FakeSuite:
    """Stands for run_suite: records each call's options and workspace prefix, answers with ``again``."""

    def __init__(self, again: ScenarioResult | None, startup_error: str | None = None) -> None:
        self.again = again
        self.startup_error = startup_error
        self.calls: list[tuple[RunValues, str]] = []

    def __call__(self, options: RunValues, workspace: Workspace) -> ResultCollector:
        self.calls.append((options, workspace.prefix))
        collector = ResultCollector(strict=False)
        collector.results = [] if self.again is None else [self.again]
        collector.startup_error = self.startup_error
        return collector


def test_the_same_requirements_and_check_failing_again_is_reproduced(tmp_path: Path) -> None:
    suite = FakeSuite(scenario())
    rerun = rerun_alone(resolve_values(RunnerOptions(stdio="server")), scenario(), Workspace(tmp_path), 60.0, suite)
    assert rerun == Rerun("reproduced", "process", "failed", ("UNI-1",), "items differ", duration_s=rerun.duration_s)
    [(values, _)] = suite.calls
    alone = (values.selection.keyword, values.fuzz.count, values.selection.tags, values.max_time)
    assert alone == ("test_truncation", 0, None, 59.5)


def test_a_pass_or_another_check_failing_is_not_reproduced(tmp_path: Path) -> None:
    values = resolve_values(RunnerOptions())
    passed = rerun_alone(values, scenario(), Workspace(tmp_path), 60.0, FakeSuite(scenario("passed")))
    other = rerun_alone(values, scenario(), Workspace(tmp_path), 60.0, FakeSuite(scenario(check="totalChars differs")))
    assert (passed.outcome, passed.status, passed.failed_requirements) == ("not_reproduced", "passed", ())
    assert (other.outcome, other.status, other.check) == ("not_reproduced", "failed", "totalChars differs")


def test_against_a_running_server_only_the_session_is_fresh(tmp_path: Path) -> None:
    def server(options: RunnerOptions) -> str:
        return rerun_alone(resolve_values(options), scenario(), Workspace(tmp_path), 60.0, FakeSuite(scenario())).server

    assert server(RunnerOptions(url="http://127.0.0.1:9/mcp")) == "session"
    assert server(RunnerOptions(http_cmd="server --port {port}", url="http://127.0.0.1:{port}/mcp")) == "process"
    assert server(RunnerOptions(in_process=True)) == "instance"


def test_nothing_is_rerun_without_time_or_selection_and_an_unfinished_rerun_says_why(tmp_path: Path) -> None:
    suite = FakeSuite(scenario())
    no_time = rerun_alone(resolve_values(RunnerOptions()), scenario(), Workspace(tmp_path), 0.5, suite)
    no_keyword = rerun_alone(resolve_values(RunnerOptions()), scenario(keyword=None), Workspace(tmp_path), 60.0, suite)
    assert suite.calls == []
    assert no_time == Rerun("not_rerun", "process", not_rerun="no_time")
    assert no_keyword == Rerun("not_rerun", "process", not_rerun="no_selection")
    broken = FakeSuite(None, startup_error="the server exited with code 3")
    unfinished = rerun_alone(resolve_values(RunnerOptions()), scenario(), Workspace(tmp_path), 60.0, broken)
    assert (unfinished.outcome, unfinished.not_rerun, unfinished.why) == (
        "not_rerun", "unfinished", "the server exited with code 3"
    )


def test_one_rerun_per_group_each_in_a_workspace_part_of_its_own(tmp_path: Path) -> None:
    suite = FakeSuite(scenario())
    workspace = Workspace(tmp_path / "sessions")
    same = [scenario(name=f"same {n}") for n in range(3)]
    other = scenario(check="totalChars differs", name="other")
    passed = scenario("passed", name="passed")
    scenarios = [*same, passed, other]
    rerun_failures(
        resolve_values(RunnerOptions()), scenarios, workspace, RunContext(), left=lambda: 60.0, suite=suite,
    )
    assert [s.rerun is not None for s in scenarios] == [True, False, False, False, True]
    assert [prefix for _, prefix in suite.calls] == [f"{workspace.prefix}-rerun1", f"{workspace.prefix}-rerun2"]
    workspace.close()


def test_each_outcome_in_words() -> None:
    reproduced = Rerun("reproduced", "process", "failed", ("UNI-1",), "items differ")
    passed = Rerun("not_reproduced", "session", "passed")
    other = Rerun("not_reproduced", "instance", "failed", ("BUD-1",), "items differ")
    assert rerun_line(reproduced) == (
        "reproduced alone: run again by itself on a fresh server process, it failed UNI-1 at the same check"
    )
    assert rerun_line(passed) == (
        "not reproduced alone: run again by itself on a fresh session of the same running server (--url: the server"
        " itself was not restarted), it passed: the failure points at load, concurrency or what ran before it"
    )
    assert rerun_line(other) == (
        "not reproduced alone: run again by itself on a fresh server in the runner (--in-process), it failed BUD-1 at"
        " another check (items differ): the failure points at load, concurrency or what ran before it"
    )
    assert rerun_line(Rerun("not_rerun", "process", not_rerun="no_time")) == (
        "not rerun alone: too little of --max-time was left"
    )
    zh_reproduced = "单独重跑复现：在新的服务器进程上单独再跑一次，UNI-1 在同一检查处失败"  # noqa: RUF001
    zh_unfinished = "未单独重跑：重跑没有完成（exit 3）"  # noqa: RUF001
    assert rerun_line(reproduced, "zh-CN") == zh_reproduced
    assert rerun_line(Rerun("not_rerun", "process", not_rerun="unfinished", why="exit 3"), "zh-CN") == zh_unfinished
