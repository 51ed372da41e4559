"""One name per option across commands, the config file and the GitHub Action: ``list --json FILE`` as
``run --json FILE``, the config key ``keyword`` as the Action's input (``k`` still read, with a note)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ccweb_conformance.cli import main
from ccweb_conformance.config import config_rows, load_config
from ccweb_conformance.options import table

ROOT = Path(__file__).resolve().parents[3]
KIT_INPUTS = {"args", "kit-version", "kit-source", "python-version"}
"""The Action's inputs that are about installing and calling the kit, not options of ``run``."""
ZWJ = "ac07_unicode.feature::A ZWJ family counts each code point and may be cut inside"
DEPRECATED_JSON = (
    "ccweb-conformance: note: list --json without FILE is deprecated: give a FILE, or --json - for stdout, "
    "as 'run --json' takes\n"
)


def _scenario_ids(text: str) -> list[str]:
    return [s["id"] for r in json.loads(text)["requirements"] for s in r["scenarios"]]


def test_list_json_file_writes_the_listing_and_keeps_the_text_on_stdout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["list", "-k", "ZWJ", "--json", "listing.json"]) == 0
    out, err = capsys.readouterr()
    assert _scenario_ids((tmp_path / "listing.json").read_text("utf-8")) == [ZWJ]
    assert out.splitlines()[-1] == "1 requirements, 1 scenario entries"
    assert err == ""


def test_list_json_dash_is_stdout_alone(capsys):
    assert main(["list", "-k", "ZWJ", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert _scenario_ids(out) == [ZWJ]
    assert err == ""


@pytest.mark.parametrize("words", [["--json", "-k", "ZWJ"], ["-k", "ZWJ", "--json"]], ids=["before", "after"])
def test_the_old_list_json_switch_still_prints_json_with_a_note(words, capsys):
    assert main(["list", *words]) == 0
    out, err = capsys.readouterr()
    assert _scenario_ids(out) == [ZWJ]
    assert err == DEPRECATED_JSON


def test_list_json_refuses_a_path_it_cannot_write(tmp_path, monkeypatch, capsys):
    """A folder that is a file cannot hold the listing (a missing folder is created, as for every report)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("", encoding="utf-8")
    assert main(["list", "--json", "afile/listing.json"]) == 2
    assert capsys.readouterr() == (
        "",
        "ccweb-conformance: error: cannot write 'afile/listing.json': 'afile' is not a folder\n",
    )


def test_a_config_json_does_not_redirect_list(tmp_path, monkeypatch, capsys):
    """A config file's ``json`` is the run's report: ``list`` still prints, and writes no file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ccweb-conformance.toml").write_text('json = "report.json"\n', encoding="utf-8")
    assert main(["list", "-k", "ZWJ"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 requirements, 1 scenario entries"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ccweb-conformance.toml"]


def test_config_keys_are_the_actions_input_names():
    """Every Action input that sets an option of ``run`` is that option's config key, and no other name."""
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"]) - KIT_INPUTS
    keys = {key for key, row in config_rows().items() if row.spec.read_by("run")}
    assert inputs - keys == set()
    assert {row.spec.key for row in table() if row.name == "keyword"} == {"keyword"}


def test_the_config_key_keyword_selects(tmp_path, capsys):
    (tmp_path / "ccweb-conformance.toml").write_text('keyword = "ZWJ"\n', encoding="utf-8")
    assert load_config(tmp_path, "list") == (tmp_path / "ccweb-conformance.toml", {"keyword": "ZWJ"})
    assert capsys.readouterr().err == ""


def test_the_old_config_key_k_is_read_with_a_note(tmp_path, capsys):
    path = tmp_path / "ccweb-conformance.toml"
    path.write_text('k = "ZWJ"\n', encoding="utf-8")
    assert load_config(tmp_path, "run") == (path, {"keyword": "ZWJ"})
    assert capsys.readouterr().err == (
        f"ccweb-conformance: note: {path}: the key 'k' is deprecated; name it 'keyword', "
        "as the GitHub Action's input is named\n"
    )


def test_the_old_and_the_new_key_together_are_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "ccweb-conformance.toml"
    path.write_text('k = "ZWJ"\nkeyword = "emoji"\n', encoding="utf-8")
    assert main(["list"]) == 2
    assert capsys.readouterr().err == (
        f"ccweb-conformance: error: {path}: 'k' and 'keyword' name the same option; keep 'keyword'\n"
    )


@pytest.mark.parametrize("key", ["output", "check", "file"])
def test_command_line_only_options_are_no_config_keys(key, tmp_path, capsys):
    (tmp_path / "ccweb-conformance.toml").write_text(f'{key} = "x"\n', encoding="utf-8")
    with pytest.raises(Exception, match=f"unknown key '{key}'"):
        load_config(tmp_path, "spec")


def test_spec_lang_is_the_documents_language_whatever_the_locale_or_the_config(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["spec", "--lang", "en"]) == 0
    english = capsys.readouterr().out
    assert main(["spec", "--lang", "zh-CN"]) == 0
    assert capsys.readouterr().out != english
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    (tmp_path / "ccweb-conformance.toml").write_text('lang = "zh-CN"\n', encoding="utf-8")
    assert main(["spec"]) == 0
    assert capsys.readouterr().out == english
