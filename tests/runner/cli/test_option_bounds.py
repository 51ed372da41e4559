"""Time bounds are finite and bounded in the option table, so the command line and the config file agree.

``--max-time inf`` once removed the whole-run bound; ``nan``, negative and absurd values now
give one line and exit 2, whichever way they come in.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.options import RunnerOptions, table

BOUNDED = {
    "--timeout": "(0, 600] seconds",
    "--max-time": "(0, 86400] seconds",
    "--fuzz-time": "(0, 86400] seconds",
}


@pytest.mark.parametrize(
    ("flag", "word", "shown"),
    [
        ("--max-time", "inf", "inf"),
        ("--max-time", "nan", "nan"),
        ("--max-time", "-5", "-5.0"),
        ("--max-time", "0", "0.0"),
        ("--max-time", "1e9", "1000000000.0"),
        ("--timeout", "inf", "inf"),
        ("--timeout", "nan", "nan"),
        ("--fuzz-time", "inf", "inf"),
        ("--fuzz-time", "-1", "-1.0"),
        ("--fuzz-time", "1e300", "1e+300"),
    ],
)
def test_a_time_bound_that_is_not_a_finite_range_value_is_a_usage_error(
    flag: str, word: str, shown: str, capsys: pytest.CaptureFixture[str]
):
    assert main(["run", "--in-process", flag, word]) == 2
    assert capsys.readouterr() == ("", f"ccweb-conformance: error: {flag} {shown} is out of range {BOUNDED[flag]}\n")


@pytest.mark.parametrize(
    ("key", "value"),
    [("max-time", "inf"), ("max-time", "nan"), ("timeout", "-inf"), ("fuzz-time", "1e12"), ("timeout", "0")],
)
def test_the_config_file_gets_the_same_check(
    key: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ccweb-conformance.toml").write_text(f"in-process = true\n{key} = {value}\n", encoding="utf-8")
    assert main(["run"]) == 2
    where = tmp_path / "ccweb-conformance.toml"
    assert (
        capsys.readouterr().err == f"ccweb-conformance: error: {where}: {key} is out of range {BOUNDED['--' + key]}\n"
    )


def test_every_float_option_of_the_table_has_an_upper_bound():
    floats = [row.name for row in table() if float in (row.kind, *getattr(row.kind, "__args__", ()))]
    assert floats == ["timeout", "max_time", "fuzz_time", "settle"]
    assert all(
        row.spec.bounds is not None and row.spec.bounds.high is not None for row in table() if row.name in floats
    )


def test_the_pytest_plugin_path_is_checked_too():
    assert RunnerOptions(max_time=float("inf")).problems() == ["--max-time inf is out of range (0, 86400] seconds"]
    assert RunnerOptions(max_time=86_400.0).problems() == []
