"""``ccweb-conformance profile``: generated files, growth and budgets, the reports, and whole runs.

Whole runs use small sizes (10 and 1,000 messages) and ``--settle 0`` so they stay fast; the
fakes in tests/runner/fakes/profile_stdio.py are a slow one (re-reads the file and sleeps in
proportion to it) and one that caches wrongly (serves a stale answer after the file changed).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import tempfile
import xml.etree.ElementTree as ET
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, ValidationError
from runner.profile.profile_processes import PYTHON, assert_gone, fake, interrupt

import ccweb_spec
from ccweb_conformance.cli import main
from ccweb_conformance.profile.budgets import advisories
from ccweb_conformance.profile.conversation import at_revision, messages, revisable_bytes, revision_marker
from ccweb_conformance.profile.growth import classify, exponent, judge
from ccweb_conformance.profile.markdown import render_markdown
from ccweb_conformance.profile.model import ImplementationProfile, Profile, SizeResult
from ccweb_conformance.profile.svg import render_svg
from ccweb_conformance.profile.writer import ProfileFiles
from ccweb_reference.core import list_user_inputs

SVG = "{http://www.w3.org/2000/svg}"
REPORT_SCHEMA = json.loads(files("ccweb_conformance").joinpath("schemas", "profile.schema.json").read_text("utf-8"))
FAST = ["--settle", "0", "--repeats", "5"]
UUID_FILE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.json")
CALLS_PER_SIZE = 13
"""Checked calls per size with FAST: tiny warm-up, large warm-up, 5 first, 1 priming, 5 repeated."""


def profile_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any], str]:
    """Run the profile with --json; the exit code, the report (valid against its schema), stdout + stderr."""
    report = tmp_path / "profile.json"
    code = main(["profile", *args, "--json", str(report)])
    out, err = capsys.readouterr()
    document = json.loads(report.read_text(encoding="utf-8"))
    Draft202012Validator(REPORT_SCHEMA).validate(document)
    return code, document, out + err


# -- the generated conversations --------------------------------------------------------------


def test_the_file_is_cc_webs_layout_with_mixed_scripts_and_tool_calls():
    data = revisable_bytes(4, "conv-1")
    session = json.loads(data)
    assert data.startswith(b'{\n  "id": "conv-1",\n  "title": ')
    assert "用户".encode() in data and "😀".encode() in data  # raw UTF-8, not \\u escapes
    assert [m["role"] for m in session["messages"]] == ["user", "assistant", "user", "assistant"]
    assert [len(m.get("toolCalls", [])) for m in session["messages"]] == [0, 1, 0, 1]
    assert session["messages"][2]["content"].endswith(" [profile revision 0000]")
    assert session["messages"][0]["content"].count("[profile revision") == 0


def test_a_revision_changes_the_newest_user_input_and_not_the_size():
    data = revisable_bytes(10, "conv-1")
    changed = at_revision(data, 7)
    assert len(changed) == len(data)
    assert json.loads(changed)["messages"][8]["content"].endswith(f" {revision_marker(7)}")
    assert revision_marker(7) == "[profile revision 0007]"
    assert changed.replace(b"0007]", b"0000]") == data


def test_the_generator_is_the_benchmarks_and_stays_the_same():
    stored = messages(3, seed=0)
    assert stored[0]["content"].startswith("有 failing the the migration, 要 again the 所有")  # fixed seed, fixed text
    assert len(revisable_bytes(100, "c")) == 66_629  # 100 messages, byte for byte the same every time


# -- growth, verdicts, budgets ----------------------------------------------------------------


def test_growth_exponents_and_classes():
    assert exponent(10.0, 100.0, 10.0, noise_ms=10) == pytest.approx(1.0)
    assert exponent(1.0, 9.0, 10.0, noise_ms=10) == 0.0  # under the noise level: flat
    assert exponent(100.0, 10_000.0, 10.0, noise_ms=10) == pytest.approx(2.0)
    assert exponent(None, 10.0, 10.0, noise_ms=10) is None
    assert classify([0.0, 0.25]) == "flat"
    assert classify([0.2, 1.1]) == "linear in the file"
    assert classify([1.0, 1.6]) == "worse than linear"
    assert classify([None]) == "not measured"


def sized(messages: int, file_bytes: int, first: float, repeated: float, **figures: Any) -> SizeResult:
    return SizeResult(messages, file_bytes, first_ms=[first] * 3, repeated_ms=[repeated] * 3, **figures)


def test_budgets_warn_with_their_ids_at_the_sizes_that_miss_them():
    implementation = ImplementationProfile("slow one", "stdio server 'x'", "stdio", False)
    implementation.sizes = [
        sized(1_000, 660_000, 30.0, 25.0, read_per_call=660_000.0, idle_bytes=10**7, peak_bytes=10**7 + 10**6),
        sized(10_000, 6_600_000, 3000.0, 250.0, read_per_call=6_600.0, idle_bytes=10**7, peak_bytes=10**7 + 3 * 10**7),
    ]
    judge(implementation)
    found = [(a.budget, a.messages, round(a.value, 3)) for a in advisories(implementation)]
    assert found == [
        ("PERF-1", 10_000, 3000.0),
        ("PERF-2", 1_000, 25.0),
        ("PERF-2", 10_000, 250.0),
        ("PERF-3", 1_000, 1.0),
        ("PERF-4", 10_000, 4.545),
        ("PERF-5", 10_000, 2.0),
        ("PERF-6", 10_000, 1.0),
    ]
    assert implementation.verdict is not None
    assert implementation.verdict.summary == (
        "worse: first calls grow faster than the file; repeated calls grow with the file (re-reads it)"
    )


def test_a_good_implementation_meets_every_budget():
    implementation = ImplementationProfile("good one", "stdio server 'y'", "stdio", True)
    implementation.sizes = [
        sized(1_000, 660_000, 5.0, 1.5, read_per_call=340.0, idle_bytes=10**7, peak_bytes=10**7 + 10**6),
        sized(10_000, 6_600_000, 25.0, 1.6, read_per_call=340.0, idle_bytes=10**7, peak_bytes=10**7 + 10**7),
    ]
    judge(implementation)
    assert advisories(implementation) == []
    assert implementation.verdict is not None
    assert implementation.verdict.summary == "first call linear in the file, repeated calls flat"


def test_the_report_schema_is_valid_and_rejects_a_report_without_its_verdicts():
    Draft202012Validator.check_schema(REPORT_SCHEMA)
    implementation = {"name": "x", "description": "x", "transport": "stdio", "isReference": False, "sampled": False}
    document = {
        **{"format": "ccweb-conformance-profile", "formatVersion": "1.0.0", "kitVersion": "0", "specVersion": "1"},
        **{"startedAt": "2026-12-03T00:00:00+00:00", "durationSeconds": 1.0, "sizes": [10], "wrong": False},
        **{"implementations": [{**implementation, "sizes": [], "growth": []}], "advisories": []},
    }
    with pytest.raises(ValidationError, match="'verdict' is a required property"):
        Draft202012Validator(REPORT_SCHEMA).validate(document)


def test_the_budgets_file_is_valid_and_its_schema_rejects_an_unknown_metric():
    schema = json.loads(ccweb_spec.spec_files().joinpath("schemas/performance.schema.json").read_text())
    document = ccweb_spec.performance()
    assert [b["id"] for b in document["budgets"]] == [f"PERF-{n}" for n in range(1, 7)]
    broken = json.loads(json.dumps(document))
    broken["budgets"][0]["metric"] = "fastness"
    with pytest.raises(ValidationError):
        Draft202012Validator(schema).validate(broken)


# -- the reports ------------------------------------------------------------------------------


def two_implementations() -> Profile:
    profile = Profile("0.1.0", "1.0.0", "2026-12-03T00:00:00+00:00", (10, 1_000, 100_000))
    figures = {
        "fast": [(2.0, 1.0), (5.0, 1.2), (250.0, 1.5)],
        "slow": [(3.0, 1.5), (150.0, 140.0), (15_000.0, 14_000.0)],
    }
    for name, points in figures.items():
        implementation = ImplementationProfile(name, f"stdio server '{name}'", "stdio", name == "fast")
        implementation.sizes = [
            sized(m, m * 660, first, repeated) for m, (first, repeated) in zip(profile.sizes, points, strict=True)
        ]
        judge(implementation)
        profile.implementations.append(implementation)
    return profile


def test_the_svg_has_axes_one_series_per_implementation_and_the_measured_points():
    root = ET.fromstring(render_svg(two_implementations()))
    assert root.tag == f"{SVG}svg"
    classes = [e.get("class") for e in root.iter() if e.get("class")]
    assert classes.count("axis x") == 1 and classes.count("axis y") == 1
    x_ticks = [e.text for e in root.iter(f"{SVG}text") if e.get("class") == "tick x"]
    y_ticks = [e.text for e in root.iter(f"{SVG}text") if e.get("class") == "tick y"]
    assert x_ticks == ["10", "100", "1,000", "10,000", "100,000"]
    assert y_ticks == ["1", "10", "100", "1,000", "10,000", "100,000"]
    labels = {e.text for e in root.iter(f"{SVG}text") if (e.get("class") or "").startswith("label")}
    assert labels == {"messages in the conversation (log scale)", "median latency, ms (log scale)"}
    series = [g for g in root.iter(f"{SVG}g") if g.get("class") == "series"]
    assert [g.get("data-implementation") for g in series] == ["fast", "slow"]
    for group in series:
        curves = [p.get("class") for p in group.iter(f"{SVG}polyline")]
        assert curves == ["curve first", "curve repeated"]
        points = [(c.get("data-messages"), c.get("data-ms")) for c in group.iter(f"{SVG}circle")]
        assert [m for m, _ in points] == ["10", "1000", "100000"] * 2
    slow = series[1]
    titles = [c.find(f"{SVG}title").text for c in slow.iter(f"{SVG}circle")]  # type: ignore[union-attr]
    assert titles[2] == "slow, first call after a change, 100,000 messages: 15,000.00 ms"
    assert titles[5] == "slow, repeated call, unchanged file, 100,000 messages: 14,000.00 ms"
    xs = [float(c.get("cx") or 0) for c in slow.iter(f"{SVG}circle")][:3]
    assert xs == [80.0, 375.0, 670.0]  # one decade apart: 10 -> 1,000 -> 100,000 on a log axis
    ys = [float(c.get("cy") or 0) for c in slow.iter(f"{SVG}circle")][:3]
    assert ys[0] > ys[1] > ys[2]  # larger latency, higher up


def test_the_svg_draws_the_time_budgets_the_noise_band_the_linear_guide_and_the_verdicts():
    root = ET.fromstring(render_svg(two_implementations()))
    budgets = {line.get("class"): line for line in root.iter(f"{SVG}line") if "budget" in (line.get("class") or "")}
    assert sorted(budgets) == ["budget PERF-1", "budget PERF-2"]
    assert budgets["budget PERF-1"].get("stroke-dasharray") is None  # the first call's curve is solid
    assert budgets["budget PERF-2"].get("stroke-dasharray") == "6 4"  # the repeated call's is dashed
    # y axis 1 .. 100,000 ms over 440 px from y 56 to 496, 88 px a decade: 2,000 ms and 20 ms
    assert budgets["budget PERF-1"].get("y1") == "205.5"
    assert budgets["budget PERF-2"].get("y1") == "381.5"
    texts = [e.text for e in root.iter(f"{SVG}text")]
    assert "PERF-1 budget, first call: 2,000 ms" in texts
    assert "PERF-2 budget, repeated call: 20 ms" in texts
    [noise] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "noise"]
    band = noise.find(f"{SVG}rect")
    assert band is not None and (band.get("y"), band.get("height")) == ("408.0", "88.0")  # 10 ms down to 1 ms
    assert "under 10 ms: round-trip noise (counts as flat)" in texts
    assert "linear in the file (slope 1)" in texts
    verdicts = [e for e in root.iter(f"{SVG}text") if (e.get("class") or "").startswith("verdict-line")]
    shown = [(e.get("class"), "".join(e.itertext())) for e in verdicts]
    assert shown == [
        ("verdict-line good", "\u2713 fast: first call linear in the file, repeated calls flat"),
        ("verdict-line bad", "\u2717 slow: worse: repeated calls grow with the file (re-reads it)"),
    ]


def test_a_verdict_is_not_flat_when_the_repeated_calls_re_read_the_file():
    implementation = ImplementationProfile("re-reader", "stdio server 'z'", "stdio", False, sampled=True)
    implementation.sizes = [
        sized(10, 6_600, 2.0, 1.5, read_per_call=6_600.0),
        sized(1_000, 660_000, 6.0, 5.0, read_per_call=660_000.0),
    ]
    judge(implementation)
    assert implementation.verdict is not None
    assert (implementation.verdict.repeated, implementation.verdict.good) == ("linear in the file", False)
    assert implementation.verdict.summary == (
        "worse: repeated calls re-read the file (100% of it per call at 1,000 messages), "
        "though their times do not show it at these sizes"
    )


def test_repeated_calls_that_grow_without_reading_the_file_are_not_called_re_reads():
    implementation = ImplementationProfile("busy", "stdio server 'b'", "stdio", False, sampled=True)
    implementation.sizes = [
        sized(10_000, 6_600_000, 25.0, 3.0, read_per_call=169.0),
        sized(100_000, 66_000_000, 250.0, 15.0, read_per_call=170.0),
    ]
    judge(implementation)
    assert implementation.verdict is not None
    assert implementation.verdict.summary == (
        "worse: repeated calls grow with the file (though it reads at most 170 B per call: "
        "work on the whole conversation per call, or a busy machine)"
    )


def test_a_verdict_under_the_noise_level_says_the_sizes_are_too_small_to_tell():
    implementation = ImplementationProfile("quick", "stdio server 'q'", "stdio", True, sampled=True)
    implementation.sizes = [
        sized(10, 6_600, 2.0, 1.5, read_per_call=340.0),
        sized(1_000, 660_000, 6.0, 1.4, read_per_call=340.0),
    ]
    judge(implementation)
    assert implementation.verdict is not None
    assert implementation.verdict.summary == (
        "first call flat, repeated calls flat "
        "(every median under the 10 ms noise level: larger sizes tell flat from linear)"
    )


def test_the_markdown_starts_with_the_verdicts_and_log_scale_charts_with_named_coloured_lines():
    text = render_markdown(two_implementations())
    blocks = [b.split("```", 1)[0] for b in text.split("```mermaid\n")[1:]]
    assert len(blocks) == 2
    first = blocks[0].splitlines()
    assert first == [
        '%%{init: {"themeVariables": {"xyChart": {"plotColorPalette": "#6b6b6b, #1f77b4, #c0392b, #b0b0b0"}}}}%%',
        "xychart-beta",
        '    title "First call after a change: median ms, log scale"',
        '    x-axis "messages" ["10", "1,000", "100,000"]',
        '    y-axis "log10 ms (2 = 100 ms)" 0 --> 5',
        '    line "fast" [0.301, 0.699, 2.398]',
        '    line "slow" [0.477, 2.176, 4.176]',
        '    line "PERF-1 budget 2,000 ms" [3.301, 3.301, 3.301]',
        '    line "noise level 10 ms" [1, 1, 1]',
    ]
    assert blocks[1].splitlines()[-2] == '    line "PERF-2 budget 20 ms" [1.301, 1.301, 1.301]'
    assert "grey `fast`, blue `slow`; red: the budget (PERF-1 (2,000 ms) and PERF-2 (20 ms))" in text
    verdict = text.index("**Verdict**")
    assert verdict < text.index("```mermaid") < text.index("| messages |")
    assert "- \u2717 `slow`: worse: repeated calls grow with the file (re-reads it)" in text
    assert "- \u2713 `fast`: first call linear in the file, repeated calls flat" in text


# -- whole runs -------------------------------------------------------------------------------


def test_a_slow_implementation_gets_the_warnings_and_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, report, text = profile_json(
        tmp_path, capsys, "--stdio", fake("slow"), "--sizes", "10,1000", "--no-reference", *FAST
    )
    assert code == 0
    assert report["wrong"] is False
    [implementation] = report["implementations"]
    assert implementation["name"].endswith(" profile_stdio.py")
    assert implementation["sampled"] is True
    found = sorted({(a["budget"], a["messages"]) for a in report["advisories"]})
    assert found == [("PERF-2", 1000), ("PERF-3", 1000), ("PERF-6", 1000)]
    reread = next(a for a in report["advisories"] if a["budget"] == "PERF-3")
    assert reread["value"] >= 1.0  # the whole file (twice: the fake reads it, then its store does)
    assert implementation["verdict"]["summary"] == "worse: repeated calls grow with the file (re-reads it)"
    assert [s["callsChecked"] for s in implementation["sizes"]] == [CALLS_PER_SIZE, CALLS_PER_SIZE]
    assert "warning: PERF-3 A call on an unchanged conversation SHOULD NOT re-read the file" in text
    assert f"correctness: all {2 * CALLS_PER_SIZE} calls answered as the reference core does" in text
    assert "profile: size 1/2: 10 messages (0.01 MB): " in text
    assert "profile: size 2/2: 1,000 messages (0.66 MB): " in text


def stale_difference(count: int, revision: int) -> str:
    """The one difference a stale answer shows at ``revision``: the newest item's content."""
    stored = json.loads(revisable_bytes(count, "any"))["messages"]
    old = list_user_inputs("any", stored, 15, 1000)["items"]
    new_content = old[-1]["content"].replace(revision_marker(0), revision_marker(revision))
    shown_old, shown_new = (json.dumps(c, ensure_ascii=False) for c in (old[-1]["content"], new_content))
    return f"$.items[{len(old) - 1}].content: expected {shown_new}, got {shown_old}"


def test_a_wrong_cache_is_reported_wrong_not_fast(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, report, text = profile_json(
        tmp_path, capsys, "--stdio", fake("stale"), "--sizes", "10", "--no-reference", *FAST
    )
    assert code == 1
    assert report["wrong"] is True
    [size] = report["implementations"][0]["sizes"]
    assert size["wrong"][0] == {
        "phase": "first",
        "call": 1,
        "revision": 1,
        "differences": [stale_difference(10, 1)],
    }
    assert [(w["phase"], w["call"]) for w in size["wrong"]] == [("first", 1), ("first", 2), ("first", 3)]
    assert "WRONG: answers that differ from the reference core (reported as wrong, not as fast):" in text
    assert f"first call 1 (revision 1):\n      {stale_difference(10, 1)}\n" in text
    assert "WRONG (13 checked)" in text


def test_beside_the_reference_both_are_profiled_and_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # --settle 2.5 (the default): the reference caches only files unchanged for 2 s
    code, report, text = profile_json(
        tmp_path, capsys, "--stdio", fake("slow"), "--sizes", "10", *FAST, "--settle", "2.5"
    )
    assert code == 0
    names = [i["name"] for i in report["implementations"]]
    assert names[1] == "reference" and names[0].endswith("profile_stdio.py")
    assert [i["isReference"] for i in report["implementations"]] == [False, True]
    assert [i["sizes"][0]["callsChecked"] for i in report["implementations"]] == [CALLS_PER_SIZE] * 2
    reference = report["implementations"][1]["sizes"][0]
    assert reference["readBytesPerRepeatedCall"] < 2_000  # the request line, not the 7 KB file
    assert f"correctness: all {2 * CALLS_PER_SIZE} calls answered as the reference core does" in text


def test_an_http_target_and_the_reports_are_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    reference = f"{shlex.quote(PYTHON)} -m ccweb_reference.cli --sessions-dir {{sessions_dir}} --http --port {{port}}"
    svg, markdown = tmp_path / "chart.svg", tmp_path / "summary.md"
    code, report, _ = profile_json(
        tmp_path,
        capsys,
        *("--http-cmd", reference, "--url", "http://127.0.0.1:{port}/mcp", "--sizes", "10", "--no-reference"),
        *(*FAST, "--svg", str(svg), "--markdown", str(markdown)),
    )
    assert code == 0
    [implementation] = report["implementations"]
    assert (implementation["transport"], implementation["sampled"]) == ("http", True)
    assert ET.parse(svg).getroot().tag == f"{SVG}svg"
    assert '"plotColorPalette": "#1f77b4, #c0392b, #b0b0b0"}}}}%%\nxychart-beta\n' in markdown.read_text(
        encoding="utf-8"
    )


def test_a_running_server_gets_only_its_own_files_which_are_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], start_server: Any
):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "theirs.json").write_text('{"messages": []}')
    _, base = start_server(sessions, http=True)
    seen: set[str] = set()
    real_create = ProfileFiles.create

    def create(self: ProfileFiles, conversation_id: str, data: bytes) -> None:
        real_create(self, conversation_id, data)
        seen.update(p.name for p in sessions.iterdir())

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProfileFiles, "create", create)
        code, report, _ = profile_json(
            tmp_path, capsys, "--url", base, "--sessions-dir", str(sessions), "--sizes", "10", "--no-reference", *FAST
        )
    assert code == 0
    assert sorted(p.name for p in sessions.iterdir()) == ["theirs.json"]
    assert (sessions / "theirs.json").read_text() == '{"messages": []}'
    ours = sorted(seen - {"theirs.json"})
    assert len(ours) == 2 and all(UUID_FILE.fullmatch(name) for name in ours)
    assert ours[0][:14] == ours[1][:14]  # the run's prefix: 12 hex digits and their hyphens
    [implementation] = report["implementations"]
    assert (implementation["transport"], implementation["sampled"]) == ("http", False)
    assert implementation["sizes"][0]["readBytesPerRepeatedCall"] is None
    assert implementation["sizes"][0]["callsChecked"] == CALLS_PER_SIZE


def test_a_spawned_server_reads_the_given_sessions_dir_as_run_gives_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """``profile --stdio X --sessions-dir D`` had ignored D (exit 0): the server and the oracle read the runner's
    own directory."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "theirs.json").write_text('{"messages": []}')
    seen: set[str] = set()
    real_create = ProfileFiles.create

    def create(self: ProfileFiles, conversation_id: str, data: bytes) -> None:
        real_create(self, conversation_id, data)
        seen.update(p.name for p in sessions.iterdir())

    server = shlex.join([PYTHON, "-m", "ccweb_reference.cli", "--sessions-dir", "{sessions_dir}"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ProfileFiles, "create", create)
        code, report, _ = profile_json(
            tmp_path, capsys, "--stdio", server, "--sessions-dir", str(sessions), "--sizes", "10", "--no-reference",
            *FAST,
        )
    assert code == 0
    ours = sorted(seen - {"theirs.json"})
    assert len(ours) == 2 and all(UUID_FILE.fullmatch(name) for name in ours)
    assert ours[0][:14] == ours[1][:14]
    assert sorted(p.name for p in sessions.iterdir()) == ["theirs.json"]
    [implementation] = report["implementations"]
    assert implementation["sizes"][0]["callsChecked"] == CALLS_PER_SIZE
    assert implementation["sizes"][0]["wrong"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sizes", "10,x"], "argument --sizes: 'x' is not a number of messages"),
        (["--sizes", "0"], "argument --sizes: '0' is not a whole number of messages of at least 1"),
        (
            ["--sizes", "1000", "--max-size", "100"],
            "--sizes 1,000 is above --max-size 100; raise --max-size to profile it",
        ),
        (["--max-size", "2000000"], "--max-size 2,000,000 is above the limit of 1,000,000 messages"),
        (["--repeats", "0"], "--repeats 0 must be at least 1"),
        (["--stdio", "no-such-server-xyz"], "command not found or not executable: 'no-such-server-xyz'"),
        (["--url", "http://127.0.0.1:9/mcp"], "--url without --http-cmd needs --sessions-dir"),
        (["--json", "/dev/null/folder/p.json"], "cannot write '/dev/null/folder/p.json': '/dev/null' is not a folder"),
    ],
)
def test_usage_and_start_up_errors_exit_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
):
    assert main(["profile", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ccweb-conformance: error: ") and message in err
    assert err.count("\n") == 1


def test_help_has_examples_and_every_profile_option(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        main(["profile", "--help"])
    text = capsys.readouterr().out
    examples = [line.strip() for line in text.split("\nexamples:\n", 1)[1].splitlines() if "ccweb-conformance" in line]
    assert examples[1] == 'ccweb-conformance profile --stdio "node examples/node-server/server.js"'
    for flag in ("--sizes", "--max-size", "--repeats", "--settle", "--no-reference", "--json", "--markdown", "--svg"):
        assert f"  {flag} " in text
    assert "10,1000,10000,100000" in text


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_servers_removes_the_files_and_exits_130_or_143(tmp_path: Path, sig: int, code: int):
    state, temp = tmp_path / "state", tmp_path / "tmp"
    state.mkdir()
    temp.mkdir()
    env = {**os.environ, "PROFILE_FAKE_STATE": str(state), "TMPDIR": str(temp)}
    done = interrupt(
        ["--stdio", fake("slow"), "--sizes", "10,1000", "--settle", "30"],
        env,
        sig,
        ready=lambda servers: len(servers) >= 2,  # the fake and the reference
        look=lambda: (len(list(state.glob("pid-*"))), len(list(temp.glob("ccweb-profile-*/sessions/*.json")))),
    )
    assert len(done.servers) == 2
    assert done.seen == (1, 2)  # the fake's own pid; the tiny and the large conversation
    assert done.returncode == code
    name = signal.Signals(sig).name
    assert done.err.endswith(f"ccweb-conformance: profile interrupted by {name}; servers stopped, files removed\n")
    assert list(temp.iterdir()) == []
    assert_gone(done.servers)


def test_nothing_is_left_in_the_temporary_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["profile", "--stdio", fake("slow"), "--sizes", "10", "--no-reference", *FAST]) == 0
    assert list(tmp_path.iterdir()) == []
