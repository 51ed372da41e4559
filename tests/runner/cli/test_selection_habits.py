"""Habits a pytest user brings (issue 35, 7): ``-k`` matches feature file names, a ``--co`` line pasted into
``-k`` selects that scenario, and the ``--last-failed`` records stay few, recent and free of absolute paths."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.commands import last_failed
from ccweb_conformance.commands.last_failed import CACHE_ENV, MAX_AGE_DAYS, MAX_RECORDS, prune
from ccweb_conformance.options import resolve
from ccweb_conformance.reports.model import RunResult
from ccweb_conformance.values import target_of

EMOJI_LINE = "ac07_unicode.feature::Characters outside the BMP count as one [😀-1]"


def collected(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    """The scenario lines ``run --co`` prints for ``args`` (the count line left out)."""
    assert main(["run", "--co", *args]) == 0
    return capsys.readouterr().out.splitlines()[:-1]


def names(lines: list[str]) -> list[str]:
    """The scenario names of ``--co`` lines (the padding and the requirement column left out)."""
    return [line.split("  ")[0] for line in lines]


def test_k_matches_a_feature_file_name(capsys: pytest.CaptureFixture[str]) -> None:
    ac07 = [name for name in names(collected(capsys)) if name.startswith("ac07_unicode.feature::")]
    assert len(ac07) == 13
    assert names(collected(capsys, "-k", "ac07")) == ac07  # matched nothing before
    assert names(collected(capsys, "-k", "AC07_unicode.feature")) == ac07
    assert names(collected(capsys, "-k", "ac07 and not emoji")) == [n for n in ac07 if "emoji" not in n.casefold()]


def test_a_co_line_pasted_into_k_selects_that_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    line = next(line for line in collected(capsys) if line.startswith(EMOJI_LINE))
    assert line.endswith("  UNI-1") and "   " in line  # the name, padded, then the requirement column
    for pasted in (line, EMOJI_LINE, f"  {line}  \n"):
        assert main(["run", "--co", "-k", pasted]) == 0
        out = capsys.readouterr().out.splitlines()
        count = f"1 scenario would run (selection: -k {EMOJI_LINE}); nothing was started"
        assert out == [f"{EMOJI_LINE}  UNI-1", count]


def test_an_outline_pasted_without_its_example_selects_every_example(capsys: pytest.CaptureFixture[str]) -> None:
    outline = EMOJI_LINE.rsplit(" [", 1)[0]
    lines = collected(capsys, "-k", outline)
    assert len(lines) == 6 and all(line.startswith(f"{outline} [") for line in lines)


def test_several_pasted_lines_select_each(capsys: pytest.CaptureFixture[str]) -> None:
    two = "ac07_unicode.feature::Truncation keeps whole emoji\nac07_unicode.feature::The budget counts an emoji once"
    assert main(["run", "--co", "-k", two]) == 0
    out = capsys.readouterr().out.splitlines()
    assert names(out[:-1]) == [
        "ac07_unicode.feature::Truncation keeps whole emoji", "ac07_unicode.feature::The budget counts an emoji once",
    ]  # fmt: skip
    assert out[-1] == ("2 scenarios would run (selection: -k ac07_unicode.feature::The budget counts an emoji once; "
                       "ac07_unicode.feature::Truncation keeps whole emoji); nothing was started")


def test_list_takes_a_pasted_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "-k", EMOJI_LINE]) == 0
    out = capsys.readouterr().out
    assert "    ac07_unicode.feature::Characters outside the BMP count as one (6 examples)" in out.splitlines()
    assert out.splitlines()[-1] == "1 requirements, 1 scenario entries"


def test_a_pasted_name_that_is_no_scenario_is_one_usage_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--co", "-k", "ac07_unicode.feature::No such scenario"]) == 2
    assert capsys.readouterr() == ("", "ccweb-conformance: error: -k: 'ac07_unicode.feature::No such scenario' names "
                                       "no scenario of the suite (run --co to see their names)\n")


def test_a_run_with_a_pasted_line_runs_just_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    report = tmp_path / "r.json"
    assert main(["run", "--in-process", "-k", f"{EMOJI_LINE}    UNI-1", "--json", str(report)]) == 0
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [s["name"] for s in document["scenarios"]] == [EMOJI_LINE.split("::")[1]]
    assert document["selection"] == f"-k {EMOJI_LINE}"


def _records(folder: Path, ages_days: list[float]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    paths = []
    for number, age in enumerate(ages_days):
        path = folder / f"{number:016x}.json"
        path.write_text("{}", encoding="utf-8")
        os.utime(path, (now - age * 86400, now - age * 86400))
        paths.append(path)
    return paths


def test_records_past_the_count_or_the_age_are_pruned(tmp_path: Path) -> None:
    folder = tmp_path / "last-failed"
    ages = [float(n) for n in range(MAX_RECORDS + 5)] + [MAX_AGE_DAYS + 1.0]  # 0 (newest) ... 24 days, then 31
    paths = _records(folder, ages)
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    removed = prune(folder, keep=paths[0])
    assert sorted(removed) == sorted(paths[MAX_RECORDS:])
    assert sorted(folder.iterdir()) == sorted([*paths[:MAX_RECORDS], folder / "notes.txt"])


def test_the_record_just_written_is_never_pruned(tmp_path: Path) -> None:
    paths = _records(tmp_path, [MAX_AGE_DAYS + 5.0, 1.0])
    assert prune(tmp_path, keep=paths[0]) == []


def test_an_update_prunes_and_names_paths_relatively(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", "/nonexistent-home")
    stale = _records(tmp_path / "cache" / "last-failed", [MAX_AGE_DAYS + 2.0])
    options = resolve({"stdio": f"node {tmp_path}/server.js --data /nonexistent-home/data"})
    run = RunResult(kit_version="0", spec_version="1", target="t", transport="stdio", protocol_version=None,
                    started_at="", duration_s=0.0, scenarios=[])
    assert last_failed.update(target_of(options), run) is None
    [record] = (tmp_path / "cache" / "last-failed").iterdir()
    assert record != stale[0]
    assert json.loads(record.read_text(encoding="utf-8"))["target"] == (
        "--stdio 'node ./server.js --data ~/data'"
    )
