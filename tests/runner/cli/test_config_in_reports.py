"""The config file in use and the expected-failures file are named in every report; config discovery reads
only the kit's own file and section, and at most 1 MiB of either."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ccweb_conformance.cli import main
from ccweb_conformance.config import MAX_CONFIG_BYTES

KNOWN_GAPS = "version: 1\nexpected_failures:\n  - requirement: UNI-1\n    reason: a gap this selection never reaches\n"


def test_the_config_file_and_the_expected_failures_file_are_named_in_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ccweb-conformance.toml").write_text('in-process = true\ntags = "AC-1"\nfuzz = 0\n', encoding="utf-8")
    (tmp_path / "gaps.yaml").write_text(KNOWN_GAPS, encoding="utf-8")
    reports = ["--json", "r.json", "--junitxml", "r.xml", "--markdown", "r.md"]
    assert main(["run", "--expected-failures", "gaps.yaml", *reports]) == 0
    config = str(tmp_path / "ccweb-conformance.toml")
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert (report["configFile"], report["expectedFailuresFile"], report["formatVersion"]) == (
        config, "gaps.yaml", "1.6.0"
    )
    properties = {
        p.get("name"): p.get("value") for p in ET.parse(tmp_path / "r.xml").getroot().iter("property")
    }
    assert (properties["configFile"], properties["expectedFailuresFile"]) == (config, "gaps.yaml")
    markdown = (tmp_path / "r.md").read_text("utf-8")
    assert f"config file: {config}" in markdown
    assert "expected failures: gaps.yaml" in markdown
    console = capsys.readouterr().out.splitlines()
    assert console[3:5] == [f"config file: {config}", "expected failures: gaps.yaml"], console[:6]  # after the target


def test_a_run_without_either_file_names_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--in-process", "--tags", "AC-1", "--fuzz", "0", "--json", "r.json"]) == 0
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert (report["configFile"], report["expectedFailuresFile"]) == (None, None)
    assert "config file:" not in capsys.readouterr().out


def test_another_projects_broken_pyproject_is_not_the_kits_business(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pyproject.toml without [tool.ccweb-conformance] is never parsed (its error made check-description exit 2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "theirs"\ndependencies = ["ccweb-conformance"]\nbroken = [\n', encoding="utf-8"
    )
    assert main(["check-description", "Returns the latest inputs"]) == 1
    assert capsys.readouterr().err == ""


def test_the_kits_own_section_in_a_broken_pyproject_is_still_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.ccweb-conformance]\nstdio = "node\n', encoding="utf-8")
    assert main(["list"]) == 2
    assert capsys.readouterr().err.startswith(
        f"ccweb-conformance: error: {tmp_path / 'pyproject.toml'}: cannot read the config file ("
    )


def test_a_huge_pyproject_is_skipped_with_a_note_and_never_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with (tmp_path / "pyproject.toml").open("wb") as out:  # 512 MiB, sparse: it costs no disk
        out.write(b"[tool.ccweb-conformance]\nin-process = true\n")
        out.truncate(512 << 20)
    read: list[int] = []
    real_open = Path.open

    def counted_open(self: Path, *args: object, **kwargs: object) -> object:
        stream = real_open(self, *args, **kwargs)  # type: ignore[call-overload]
        if self.name == "pyproject.toml":
            original = stream.read
            stream.read = lambda size=-1: read.append(size) or original(size)  # type: ignore[method-assign]
        return stream

    monkeypatch.setattr(Path, "open", counted_open)
    assert main(["check-description", "Returns the latest inputs"]) == 1
    assert read == [MAX_CONFIG_BYTES + 1]
    assert capsys.readouterr().err == (
        f"ccweb-conformance: note: {tmp_path / 'pyproject.toml'} is larger than 1,048,576 bytes; "
        "not read for [tool.ccweb-conformance]\n"
    )


def test_a_huge_config_file_of_the_kit_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    with (tmp_path / "ccweb-conformance.toml").open("wb") as out:
        out.truncate(2 << 20)
    assert main(["list"]) == 2
    assert capsys.readouterr().err == (
        f"ccweb-conformance: error: {tmp_path / 'ccweb-conformance.toml'}: larger than 1,048,576 bytes, "
        "which no config file is\n"
    )


def test_a_profile_names_its_config_file_in_its_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ccweb-conformance.toml").write_text("sizes = \"10\"\nrepeats = 1\nsettle = 0\n", encoding="utf-8")
    assert main(["profile", "--no-reference", "--json", "p.json", "--markdown", "p.md"]) == 0
    config = str(tmp_path / "ccweb-conformance.toml")
    report = json.loads((tmp_path / "p.json").read_text("utf-8"))
    assert (report["configFile"], report["formatVersion"]) == (config, "1.1.0")
    assert f"Config file: `{config}`." in (tmp_path / "p.md").read_text("utf-8")
    assert f"  config file: {config}" in capsys.readouterr().out.splitlines()
