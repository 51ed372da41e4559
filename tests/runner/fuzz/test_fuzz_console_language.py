# ruff: noqa: RUF001  (Chinese text: fullwidth punctuation is meant)
"""The fuzz phase's console lines follow the run's language; the reports' message stays English."""

from __future__ import annotations

from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.fuzz.execute import Mismatch
from ccweb_conformance.fuzz.phase import FuzzRun
from ccweb_conformance.fuzz.report import fuzz_console_lines, fuzz_scenario
from ccweb_conformance.fuzz.settings import FuzzSettings

REPLAY = "ccweb-conformance run --in-process --fuzz 500 --seed 1"


def a_run(**changes: object) -> FuzzRun:
    fields: dict[str, object] = {
        "settings": FuzzSettings(500, 1, 30.0),
        "replay": REPLAY,
        "cases_run": 500,
        "duration_s": 4.0,
        "digest": "1a2b3c4d5e6f7a8b",
    }
    return FuzzRun(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_passing_phase_in_english_is_unchanged() -> None:
    assert fuzz_console_lines(a_run(sweep_calls=63), verbose=False) == [
        "",
        "fuzz: 500 of 500 cases in 4.00s (125.0 cases/s), seed 1, digest 1a2b3c4d5e6f,"
        " after an argument sweep of 63 of 63 calls: passed",
    ]


def test_a_passing_phase_in_chinese() -> None:
    assert fuzz_console_lines(a_run(sweep_calls=63), verbose=False, language="zh-CN") == [
        "",
        "模糊测试：500/500 个用例，用时 4.00 秒（每秒 125.0 个），种子 1，摘要 1a2b3c4d5e6f，"
        "先做了参数扫描（63/63 次调用）：通过",
    ]


def test_an_incomplete_phase_in_chinese_on_the_console_and_in_english_in_the_reports() -> None:
    run = a_run(cases_run=12, sweep_calls=63, timed_out=True)
    lines = fuzz_console_lines(run, verbose=False, language="zh-CN")
    assert lines[1] == (
        "模糊测试：12/500 个用例，用时 4.00 秒（每秒 3.0 个），种子 1，摘要 1a2b3c4d5e6f，"
        "先做了参数扫描（63/63 次调用），到达 30 秒的安全时限后停止：FAILED（未完成）"
    )
    assert lines[2] == (
        "差分模糊测试未完成：在安全时限停止前只运行了 12/500 个生成用例和 63/63 次参数扫描调用，用时 4.0 秒"
        "（每次调用 53 毫秒）；运行的用例少于要求的阶段不算通过（可调大 --fuzz-time，或让调用更快）\n复现命令："
        + REPLAY
    )
    scenario = fuzz_scenario(run)
    assert (scenario.status, scenario.scenario, scenario.message) == (
        "failed",
        "generated conversations, seed 1 [12 of 500 cases, argument sweep 63 of 63 calls]",
        "differential fuzzing is incomplete: 12 of 500 generated cases and 63 of 63 argument-sweep calls ran in"
        " 4.0s (53 ms a call) before the safety bound stopped it; a phase that ran fewer cases than asked is not"
        " a pass (raise --fuzz-time, or make the calls faster)\nreplay: " + REPLAY,
    )


def test_a_phase_that_could_not_run_in_chinese_keeps_the_english_report_message() -> None:
    run = a_run(cases_run=0, duration_s=0.0, error="the target did not start")
    assert fuzz_console_lines(run, verbose=False, language="zh-CN") == [
        "",
        "模糊测试：0/500 个用例，用时 0.00 秒（每秒 0.0 个），种子 1，摘要 1a2b3c4d5e6f，"
        "先做了参数扫描（0/63 次调用）：FAILED",
        "差分模糊测试无法运行：the target did not start\n复现命令：" + REPLAY,
    ]
    english = "differential fuzzing could not run: the target did not start\nreplay: " + REPLAY
    assert fuzz_console_lines(run, verbose=False)[2] == english
    assert fuzz_scenario(run).message == english


def test_a_shrunk_example_in_chinese_on_the_console_and_in_english_in_the_reports() -> None:
    case = FuzzCase(messages=[{"role": "user", "content": "😀"}], storage="compact")
    mismatch = Mismatch(case, "c-1", {"n": 1}, {"n": 2}, differences=["$.n: expected 1, got 2"])
    run = a_run(cases_run=7, mismatch=mismatch, shrink_calls=3)
    lines = fuzz_console_lines(run, verbose=False, language="zh-CN")
    assert lines[2].splitlines()[:4] == [
        "差分模糊测试：被测实现与参考核心的结果不一致：$.n: expected 1, got 2",
        "在生成 7 个会话后发现（种子 1），又经 3 次调用收缩为以下最小示例：",
        "差异：",
        "  $.n: expected 1, got 2",
    ]
    assert lines[2].splitlines()[4] == "会话文件（compact），消息（JSON）："
    assert lines[2].splitlines()[-1] == "复现命令：" + REPLAY
    message = fuzz_scenario(run).message or ""
    assert message.splitlines()[:2] == [
        "differential fuzzing: the implementation differs from the reference core: $.n: expected 1, got 2",
        "found after 7 generated conversations (seed 1), shrunk with 3 further calls to this minimal example:",
    ]
    assert fuzz_console_lines(run, verbose=True, language="zh-CN")[2:] == []  # verbose: the summary shows it


def test_an_error_where_the_reference_answered_a_success_is_charged_like_a_scenarios() -> None:
    """The reference read the file: conversation_unreadable is STO-1 (it was 9 requirements, one per differing
    field); a difference of values stays with the fields."""
    from ccweb_conformance.fuzz.report import mismatch_requirements  # noqa: PLC0415

    case = FuzzCase(messages=[{"role": "user", "content": "😀"}], storage="compact")
    success = {"isError": False, "result": {"ok": True, "hasMore": False, "items": []}}
    unreadable = {"isError": True, "result": {"ok": False, "error": {"code": "conversation_unreadable"}}}
    differences = ["$.isError: expected false, got true", "$.result.ok: expected true, got false"]
    assert mismatch_requirements(Mismatch(case, "c-1", success, unreadable, differences)) == ("STO-1",)
    wrong = {"isError": False, "result": {"ok": True, "hasMore": True, "items": []}}
    assert mismatch_requirements(Mismatch(case, "c-1", success, wrong, ["$.result.hasMore: x"])) == ("RES-3",)
    items = [{"content": "a", "messageId": None}, {"content": "b", "messageId": "m"}]
    ordered = {"isError": False, "result": {"ok": True, "items": items}}
    reversed_ = {"isError": False, "result": {"ok": True, "items": items[::-1]}}
    changed = ["$.result.items[0].content: x", "$.result.items[0].messageId: y"]
    assert mismatch_requirements(Mismatch(case, "c-1", ordered, reversed_, changed)) == ("SEL-7",)
