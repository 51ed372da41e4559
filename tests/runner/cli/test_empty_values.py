"""An option given an empty value is a usage error, never "not given".

``--stdio "$SERVER"`` with ``SERVER`` unset in CI used to test the bundled reference and pass:
a green gate for an implementation that was never started. Each case exits 2 with one line,
from the command line and from the config file alike, before anything is started.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_size import SCENARIOS

from ccweb_conformance.cli import main

RUN_FLAGS = {
    "--stdio": "--stdio is empty: give the command that starts your server (an unset variable in CI?), "
    "or leave --stdio out to test the bundled reference",
    "--url": "--url is empty: give your server's URL (an unset variable in CI?)",
    "--source-env": "--source-env is empty: give it a value, or leave the option out",
    "--source-header": "--source-header is empty: give it a value, or leave the option out",
}
PATH_FLAGS = ["--json", "--junitxml", "--markdown", "--cucumberjson", "--sessions-dir", "--expected-failures"]


def _only_error(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("word", ["", "   "])
@pytest.mark.parametrize("flag", sorted(RUN_FLAGS))
def test_an_empty_text_option_is_a_usage_error(flag: str, word: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", flag, word]) == 2
    assert _only_error(capsys) == f"ccweb-conformance: error: {RUN_FLAGS[flag]}"


def test_an_empty_http_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--http-cmd", "", "--url", "http://127.0.0.1:{port}/mcp"]) == 2
    assert _only_error(capsys) == (
        "ccweb-conformance: error: --http-cmd is empty: give the command that starts your HTTP server "
        "(an unset variable in CI?)"
    )


def test_profile_refuses_an_empty_target_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["profile", "--stdio", ""]) == 2
    assert _only_error(capsys) == f"ccweb-conformance: error: {RUN_FLAGS['--stdio']}"


@pytest.mark.parametrize("flag", PATH_FLAGS)
def test_an_empty_path_is_a_usage_error(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", flag, ""]) == 2
    assert _only_error(capsys) == f"ccweb-conformance: error: argument {flag}: expected a path, got an empty string"


def test_a_report_path_that_is_a_folder_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--in-process", "--json", str(tmp_path)]) == 2
    assert _only_error(capsys) == (
        f"ccweb-conformance: error: cannot write {str(tmp_path)!r}: it is a folder; name a file in it"
    )


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('stdio = ""', f"ccweb-conformance: error: {RUN_FLAGS['--stdio']}"),
        ('json = ""', "ccweb-conformance: error: {config}: json: expected a path, got an empty string"),
        (
            'sessions-dir = " "',
            "ccweb-conformance: error: {config}: sessions-dir: expected a path, got an empty string",
        ),
    ],
)
def test_the_config_file_is_held_to_the_same_rule(
    line: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "ccweb-conformance.toml"
    config.write_text(line + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["run"]) == 2
    assert _only_error(capsys) == expected.format(config=config)


@pytest.mark.parametrize("flag", ["--tags", "-k"])
def test_an_empty_selection_still_means_every_scenario(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--in-process", "--collect-only", flag, ""]) == 0
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert (len([line for line in lines if ".feature::" in line]), lines[-1]) == (
        SCENARIOS,
        f"{SCENARIOS} scenarios would run; nothing was started",
    )
