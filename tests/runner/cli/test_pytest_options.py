"""What a pytest user reaches for: ``--last-failed``, ``--exitfirst``, ``--collect-only`` (issue 23).

``--exitfirst`` against a spawned server (reports written, nothing left behind) is the gate case
``exitfirst`` in ``runner/gate_cases.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest
from suite_size import count_scenarios

from ccweb_conformance.cli import main
from ccweb_conformance.commands.last_failed import CACHE_ENV

AC3 = "ac03_latest_fifteen.feature::"
NEWEST_FIRST_FAILS = [
    AC3 + "Twenty inputs give the latest fifteen, oldest first",
    AC3 + "Exactly fifteen inputs are all returned and nothing more is reported",
    AC3 + "The window counts candidates, not stored messages",
    AC3 + "Items keep the stored order, not the timestamps' order",
    AC3 + "A limit larger than the number of candidates returns them all",
    "ac07_unicode.feature::The budget counts an emoji once",
]
"""What the mutant newest_first fails among the scenarios of AC-1, AC-3 and UNI-1 (6 of 19)."""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


MUTANT_RUNS = {
    "first": ("lf", ["--tags", "AC-1,AC-3,UNI-1", "--json", "first.json"]),
    "again": ("lf", ["--lf", "--json", "again.json"]),
    "ac3": ("kept", ["--tags", "AC-3", "--json", "a.json"]),
}
"""The module's ``run --in-process`` with the mutant newest_first applied: name -> (its ``--last-failed`` record's
folder, its further arguments; a report path is a file in the runs' folder). ``again`` reruns what ``first`` failed."""


class MutantRun(NamedTuple):
    code: int
    stderr: str
    folder: Path
    """The runs' folder: the reports and each record's folder."""


@pytest.fixture(scope="module")
def mutant_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, MutantRun]:
    """:data:`MUTANT_RUNS`, forked from one process that imported the kit once, one after the other (``again`` reads
    the record ``first`` wrote), each with its record's folder as the cache and ``NO_COLOR``."""
    from runner.cli.expected_failures_runs import forked_runs  # noqa: PLC0415

    folder = tmp_path_factory.mktemp("pytest-options")
    runs = {
        name: {
            "argv": ["run", "--in-process", *(str(folder / w) if w.endswith(".json") else w for w in words)],
            "mutants": ["newest_first"],
            "env": {CACHE_ENV: str(folder / cache), "NO_COLOR": "1"},
        }
        for name, (cache, words) in MUTANT_RUNS.items()
    }
    done = forked_runs(folder, runs, at_a_time=1)
    return {name: MutantRun(run.returncode, run.stderr, folder) for name, run in done.items()}


def _use_the_record_of(runs: dict[str, MutantRun], name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The record's folder of the run ``name`` as this test's cache (the test goes on where that run stopped)."""
    cache = runs[name].folder / MUTANT_RUNS[name][0]
    monkeypatch.setenv(CACHE_ENV, str(cache))
    return cache


def names(report: Path, *statuses: str) -> list[str]:
    scenarios = json.loads(report.read_text(encoding="utf-8"))["scenarios"]
    return [f"{s['file']}::{s['name']}" for s in scenarios if not statuses or s["status"] in statuses]


def test_last_failed_reruns_exactly_the_scenarios_that_failed(
    mutant_runs: dict[str, MutantRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    cache = _use_the_record_of(mutant_runs, "first", monkeypatch)
    first, again = mutant_runs["first"].folder / "first.json", mutant_runs["again"].folder / "again.json"
    assert mutant_runs["first"].code == 1
    assert len(names(first)) == 20
    assert names(first, "failed") == NEWEST_FIRST_FAILS

    code, stderr = mutant_runs["again"].code, mutant_runs["again"].stderr
    assert code == 1
    assert names(again) == NEWEST_FIRST_FAILS  # exactly those, by name, and nothing else
    assert names(again, "failed") == NEWEST_FIRST_FAILS
    report = json.loads(again.read_text(encoding="utf-8"))
    assert report["selection"] == "--last-failed (6 scenarios)"
    assert report["outcome"] == "failed"
    # the emoji scenario stopped at SEL-7's check, before any check of BUD-1 or UNI-1: not reached, never PASS
    assert {r["id"]: r["status"] for r in report["requirements"]} == {
        "SEL-6": "passed", "SEL-7": "failed", "ARG-1": "passed", "BUD-1": "notreached", "UNI-1": "notreached",
    }
    said = stderr.splitlines()
    assert said.pop(0) == ("ccweb-conformance: testing the in-process reference server (selection: --last-failed "
                           "(6 scenarios)): the scenarios of ccweb_list_user_inputs 1.0.0")
    assert said[0].startswith("ccweb-conformance: --last-failed: rerunning the 6 scenarios that failed in the "
                              "last runs against --in-process (recorded ")
    assert said[1:7] == [f"  {name}" for name in NEWEST_FIRST_FAILS]

    fixed = tmp_path / "fixed.json"  # the bug fixed: the same six pass, and the record empties
    assert main(["run", "--in-process", "--last-failed", "--json", str(fixed)]) == 0
    assert names(fixed, "passed") == NEWEST_FIRST_FAILS
    [record] = (cache / "last-failed").iterdir()
    assert json.loads(record.read_text(encoding="utf-8"))["failed"] == []
    capsys.readouterr()
    assert main(["run", "--in-process", "--lf", "--co"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("ccweb-conformance: --last-failed: no scenario failed in the last runs against "
                          "--in-process (recorded ")
    assert err.endswith("; running every scenario\n")
    assert out.splitlines()[-1] == f"{count_scenarios()} scenarios would run; nothing was started"


def test_a_run_keeps_the_failures_of_scenarios_it_did_not_run(
    mutant_runs: dict[str, MutantRun], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = _use_the_record_of(mutant_runs, "ac3", monkeypatch)
    assert mutant_runs["ac3"].code == 1
    assert main(["run", "--in-process", "--tags", "AC-1", "--json", str(tmp_path / "b.json")]) == 0
    [record] = (cache / "last-failed").iterdir()
    document = json.loads(record.read_text(encoding="utf-8"))
    assert (document["version"], document["target"]) == (1, "--in-process")
    assert document["failed"] == NEWEST_FIRST_FAILS[:5]
    assert (cache / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    tag = (cache / "CACHEDIR.TAG").read_text(encoding="utf-8")
    assert tag.startswith("Signature: 8a477f597d28d172789f06886806bc55\n")


def test_last_failed_without_a_record_runs_everything_and_says_so(cache: Path, capsys) -> None:
    assert main(["run", "--in-process", "--lf", "--co", "--tags", "AC-1"]) == 0
    out, err = capsys.readouterr()
    record = cache / "last-failed"
    assert err.startswith(f"ccweb-conformance: --last-failed: no record of a run against --in-process in {record}/")
    assert err.endswith(".json; running every scenario\n")
    assert out.splitlines()[-1] == "6 scenarios would run (selection: --tags AC-1); nothing was started"
    assert not cache.exists()  # --collect-only writes nothing, not even the record


def test_collect_only_lists_the_selection_and_starts_nothing(cache: Path, tmp_path: Path, capsys) -> None:
    junit = tmp_path / "junit.xml"
    assert main(["run", "--stdio", "no-such-server-binary", "--collect-only", "--tags", "TOOL-1,PLC-4",
                 "--junitxml", str(junit)]) == 0
    out, err = capsys.readouterr()
    plc4 = "placement.feature::A tool that declares an output schema returns structured content valid against it"
    assert [" ".join(line.split()) for line in out.splitlines()] == [
        "ac01_tool_definition.feature::The tool is listed under its contract name TOOL-1",
        f'{plc4} [{{"conversationId": "{{alpha}}"}}] PLC-4',
        f'{plc4} [{{"conversationId": "!!"}}] PLC-4',
        "3 scenarios would run (selection: --tags TOOL-1,PLC-4); nothing was started",
    ]
    assert len({len(line.rsplit(" ", 1)[0]) for line in out.splitlines()[:3]}) == 1  # the IDs in one column
    assert err == "ccweb-conformance: note: --collect-only writes no report (--junitxml ignored)\n"
    assert not junit.exists()
    assert not cache.exists()


def test_collect_only_with_an_empty_selection_is_a_usage_error(cache: Path, capsys) -> None:
    assert main(["run", "--co", "-k", "no_scenario_is_called_this"]) == 2
    assert capsys.readouterr().err == "ccweb-conformance: error: no scenario matched the selection\n"


def test_a_broken_record_is_no_record_and_an_unwritable_cache_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(CACHE_ENV, str(blocker))
    assert main(["run", "--in-process", "--lf", "--tags", "TOOL-1", "--json", str(tmp_path / "r.json")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err.pop(0).startswith("ccweb-conformance: testing the in-process reference server (selection: --tags ")
    assert err[0].startswith("ccweb-conformance: --last-failed: no record of a run against --in-process in ")
    warning = f"ccweb-conformance: warning: could not record the failures for --last-failed in {blocker}/"
    assert err[-1].startswith(warning)
    tool_1 = "ac01_tool_definition.feature::The tool is listed under its contract name"
    assert names(tmp_path / "r.json", "passed") == [tool_1]


def test_the_three_options_come_from_the_config_file(cache: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    (tmp_path / "ccweb-conformance.toml").write_text(
        'collect-only = true\nexitfirst = true\nlast-failed = true\ntags = "TOOL-1"\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--in-process"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "1 scenario would run (selection: --tags TOOL-1); nothing was started"


def test_exitfirst_stops_at_the_first_failed_scenario_writes_every_report_and_leaves_nothing(tmp_path: Path) -> None:
    """A spawned stdio server whose every tools/call result carries NaN: the first scenario that calls fails.

    With the default ``--jobs``, scenarios in flight beside the failed one are not judged: the report is the one
    of a run one after another (``--jobs 1``), scenario by scenario."""
    from runner.gate_cases import Case, run_case, stdio  # noqa: PLC0415 (the gate's runner: marks, TMPDIR, reports)

    alone = run_case("exitfirst-jobs-1", Case([*stdio("nan"), "--exitfirst", "--jobs", "1"], 1, ""), tmp_path)
    outcome = run_case("exitfirst", Case([*stdio("nan"), "--exitfirst"], 1, ""), tmp_path)
    assert alone.report is not None and outcome.report is not None
    assert [(s["status"], (s["message"] or "").split("\n")[0]) for s in outcome.report["scenarios"]] == [
        (s["status"], (s["message"] or "").split("\n")[0]) for s in alone.report["scenarios"]
    ]  # the first line: the requirement, or why not run (what follows names the run's own conversation IDs)
    assert outcome.code == 1, outcome.stderr[-2000:]
    assert (outcome.left_processes, outcome.left_files) == ([], [])
    assert all(text is not None for text in outcome.reports.values())
    report = outcome.report
    assert report is not None
    statuses = [s["status"] for s in report["scenarios"]]
    assert statuses.count("failed") == 1
    assert set(statuses[statuses.index("failed") + 1 :]) == {"notrun"}
    assert report["stopped"] == "not run: --exitfirst stopped the run at the first failed scenario"
    assert report["counts"]["notrun"] == count_scenarios() - statuses.index("failed") - 1
    assert "FAIL " in outcome.stdout
    assert "Traceback" not in outcome.stdout + outcome.stderr


def test_the_record_is_kept_per_target_and_secrets_do_not_change_which_target(cache: Path, tmp_path: Path) -> None:
    from ccweb_conformance.commands.last_failed import describe_target, record_path  # noqa: PLC0415
    from ccweb_conformance.options import RunnerOptions  # noqa: PLC0415
    from ccweb_conformance.values import target_of  # noqa: PLC0415

    node = target_of(RunnerOptions(stdio="node server.js"))
    with_secrets = target_of(RunnerOptions(stdio="node server.js", env=("TOKEN=s3cret-value",)))
    others = (RunnerOptions(), RunnerOptions(in_process=True), RunnerOptions(stdio="x"))
    paths = {record_path(target) for target in (*map(target_of, others), node)}
    assert len(paths) == 4
    assert {p.parent for p in paths} == {cache / "last-failed"}
    assert record_path(with_secrets) == record_path(node)
    assert describe_target(with_secrets) == "--stdio 'node server.js' --env 'TOKEN=***'"
    assert describe_target(target_of(RunnerOptions())) == "the bundled reference"
    assert record_path(target_of(RunnerOptions(sessions_dir=tmp_path, url="http://h/mcp"))) == record_path(
        target_of(RunnerOptions(sessions_dir=tmp_path / "." / "x" / "..", url="http://h/mcp"))
    )
