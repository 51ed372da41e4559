"""The command line's list, stdout reports, selection errors, config file, colour and platform checks."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from ccweb_conformance import cli
from ccweb_conformance.cli import main
from ccweb_conformance.reports.terminal import colour_wanted


def test_list_names_requirements_and_their_scenarios_without_running(capsys):
    assert main(["list", "--tags", "uni-1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "BUD-1     MUST   The budget is spent from the newest candidate to older ones; a message that fits in the"
        " remaining budget is returned whole.",
        "    ac07_unicode.feature::The budget counts an emoji once",
        "UNI-1     MUST   Lengths are Unicode code points: a character outside the BMP (an emoji) counts 1 and is"
        " never split into UTF-16 halves when truncating.",
        "    ac07_unicode.feature::Characters outside the BMP count as one (6 examples)",
        "    ac07_unicode.feature::Truncation keeps whole emoji",
        "    ac07_unicode.feature::The budget counts an emoji once",
        "    ac07_unicode.feature::An emoji stored as an escaped surrogate pair is one code point",
        "2 requirements, 5 scenario entries",
    ]


def test_list_json_with_k(capsys):
    assert main(["list", "-k", "ZWJ", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["level"], r["criterion"]) for r in listing["requirements"]] == [("UNI-2", "MUST", "AC-7")]
    [scenario] = listing["requirements"][0]["scenarios"]
    assert scenario["id"] == "ac07_unicode.feature::A ZWJ family counts each code point and may be cut inside"


def test_list_everything_covers_every_requirement(capsys):
    assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)["requirements"]
    assert len(listing) >= 40
    assert all(r["scenarios"] for r in listing)


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        ("FOO-9", "--tags: unknown tag 'FOO-9'; run 'ccweb-conformance list' to see them"),
        ("UNI-9", "--tags: unknown tag 'UNI-9'; did you mean UNI-4, UNI-3, UNI-2?"),
        ("AC-1,SRC-77", "--tags: unknown tag 'SRC-77'; did you mean SRC-7, SRC-6, SRC-5?"),
    ],
)
def test_unknown_tags_are_named_with_the_closest_known_ones(tags, message, capsys):
    assert main(["run", "--in-process", "--tags", tags]) == 2
    assert capsys.readouterr().err == f"ccweb-conformance: error: {message}\n"


def test_tags_are_case_insensitive_and_a_selection_reports_only_its_requirements(tmp_path, capsys):
    assert main(["run", "--in-process", "--tags", "uni-1", "--json", "-"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)  # stdout holds the report alone
    assert [r["id"] for r in report["requirements"]] == ["BUD-1", "UNI-1"]
    assert report["counts"]["passed"] == 9
    assert "untested" not in captured.err
    assert "ccweb_list_user_inputs conformance: PASSED" in captured.err  # the summary went to stderr
    assert "ccweb-conformance: 9/9 scenarios" in captured.err  # progress lines in a log


def test_only_one_report_on_stdout(capsys):
    assert main(["run", "--in-process", "--json", "-", "--junitxml", "-"]) == 2
    assert capsys.readouterr().err == "ccweb-conformance: error: only one report can go to stdout (-)\n"


def test_a_config_file_sets_defaults_the_command_line_overrides(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.ccweb-conformance]\nin-process = true\ntags = "AC-1"\ntimeout = 5\n',
        encoding="utf-8",
    )
    assert main(["run", "--json", "r.json"]) == 0
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["counts"]["passed"] == 6
    assert main(["run", "--tags", "TOOL-1", "--json", "r.json"]) == 0
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["counts"]["passed"] == 1
    (tmp_path / "ccweb-conformance.toml").write_text('in-process = true\nheaders = ["A: b"]\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ccweb-conformance: error: {tmp_path / 'ccweb-conformance.toml'}: unknown key 'headers'")
    (tmp_path / "ccweb-conformance.toml").write_text("timeout = 'soon'\n", encoding="utf-8")
    assert main(["run"]) == 2
    assert capsys.readouterr().err.endswith("ccweb-conformance.toml: timeout must be a number\n")


def test_windows_stops_at_once(monkeypatch, capsys):
    monkeypatch.setattr(sys, "platform", "win32")
    assert main(["run", "--in-process"]) == 2
    assert capsys.readouterr().err == (
        "ccweb-conformance: error: ccweb-conformance supports Linux and macOS (on Windows, run it inside WSL);"
        " Windows itself is not supported\n"
    )


def test_help_names_the_platforms(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "Platforms: Linux and macOS (on Windows, run it inside WSL)." in capsys.readouterr().out
    assert cli.PLATFORMS == "Linux and macOS (on Windows, run it inside WSL)"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream", "environ", "expected"),
    [
        (Tty(), {}, True),
        (io.StringIO(), {}, False),
        (io.StringIO(), {"FORCE_COLOR": "1"}, True),
        (io.StringIO(), {"FORCE_COLOR": "0"}, False),
        (Tty(), {"NO_COLOR": "1"}, False),
        (io.StringIO(), {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        (Tty(), {"NO_COLOR": ""}, True),
    ],
)
def test_colour_follows_no_color_and_force_color(stream, environ, expected):
    assert colour_wanted(stream, environ) is expected


def test_force_color_colours_a_piped_summary(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert main(["run", "--in-process", "--tags", "TOOL-1"]) == 0
    assert "\x1b[32m" in capsys.readouterr().out


def test_a_missing_folder_of_a_report_is_created(tmp_path: Path, capsys):
    """As pytest creates --junitxml's folder (it was a usage error, even with --co)."""
    report = tmp_path / "no" / "such" / "r.json"
    assert main(["run", "--in-process", "--tags", "TOOL-1", "--fuzz", "0", "--json", str(report)]) == 0
    assert json.loads(report.read_text(encoding="utf-8"))["counts"]["passed"] == 1
    assert main(["run", "--co", "--tags", "TOOL-1", "--junitxml", str(tmp_path / "other" / "j.xml")]) == 0
    assert not (tmp_path / "other").exists()  # --co writes nothing, not even a folder


def test_a_report_under_a_file_is_refused(tmp_path: Path, capsys):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main(["run", "--co", "--json", str(tmp_path / "file" / "r.json")]) == 2
    assert capsys.readouterr().err == (
        f"ccweb-conformance: error: cannot write '{tmp_path}/file/r.json': '{tmp_path}/file' is not a folder\n"
    )
