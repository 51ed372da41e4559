"""Nothing in the environment changes what a run runs; a run that ran less than the suite never says a full PASSED."""

from __future__ import annotations

import json
import os
import sys

import pytest
from suite_size import HTTP_ONLY, ROOT_SKIPS, SCENARIOS

from ccweb_conformance.cli import main
from ccweb_conformance.suite import session as suite_session

PLUGIN = "ccweb_gate_probe_plugin"
"""A module named in PYTEST_PLUGINS: importing it records that it was loaded."""


def _report(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_pytest_configuration_from_the_environment_and_the_working_directory_is_ignored(tmp_path, monkeypatch, capsys):
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / f"{PLUGIN}.py").write_text("import os\nopen(os.environ['GATE_PROBE_MARK'], 'w').close()\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "pytest.ini").write_text("[pytest]\naddopts = -k emoji\n")
    (work / "conftest.py").write_text("import os\nopen(os.environ['GATE_PROBE_MARK'], 'w').close()\n")
    mark = tmp_path / "loaded"
    monkeypatch.syspath_prepend(str(probe))
    monkeypatch.chdir(work)
    monkeypatch.setenv("GATE_PROBE_MARK", str(mark))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-k 'not description'")
    monkeypatch.setenv("PYTEST_PLUGINS", PLUGIN)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "")
    report = tmp_path / "report.json"
    code = main(["run", "--in-process", "--fuzz", "0", "--json", str(report)])
    data = _report(report)
    assert (code, data["counts"]["total"], data["counts"]["passed"], data["selection"]) == (
        0,
        SCENARIOS + 1,  # and the RO-2 audit of the run
        SCENARIOS + 1 - HTTP_ONLY - ROOT_SKIPS,  # in process: the HTTP-only scenarios skip (and, as root, one more)
        None,
    )
    assert (mark.exists(), PLUGIN in sys.modules) == (False, False)
    assert capsys.readouterr().out.splitlines()[0] == "ccweb_list_user_inputs conformance: PASSED"
    assert (os.environ["PYTEST_ADDOPTS"], os.environ["PYTEST_PLUGINS"]) == ("-k 'not description'", PLUGIN)


def test_the_environment_is_given_back_before_the_servers_start(tmp_path, monkeypatch):
    seen: list[str | None] = []
    original = suite_session.RunObserver.pytest_collection_finish

    def spy(self, session: pytest.Session) -> None:  # after configuration, before any scenario
        seen.append(os.environ.get("PYTEST_ADDOPTS"))
        original(self, session)

    monkeypatch.setattr(suite_session.RunObserver, "pytest_collection_finish", spy)
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    code = main(["run", "--in-process", "--fuzz", "0", "-k", "emoji", "--json", str(tmp_path / "r.json")])
    assert (code, seen, os.environ["PYTEST_ADDOPTS"]) == (0, ["-x"], "-x")


def test_a_selection_is_in_every_report_and_the_verdict(tmp_path, capsys):
    json_path, junit_path, markdown_path = tmp_path / "r.json", tmp_path / "r.xml", tmp_path / "r.md"
    argv = ["run", "--in-process", "-k", "emoji", "--json", str(json_path), "--junitxml", str(junit_path)]
    code = main([*argv, "--markdown", str(markdown_path)])
    data = _report(json_path)
    assert (code, data["outcome"], data["selection"], data["counts"]["total"]) == (0, "passed", "-k emoji", 3)
    assert capsys.readouterr().out.splitlines()[0] == "ccweb_list_user_inputs conformance: PASSED (selection: -k emoji)"
    assert '<property name="selection" value="-k emoji" />' in junit_path.read_text(encoding="utf-8")
    assert markdown_path.read_text(encoding="utf-8").splitlines()[0] == (
        "## ccweb_list_user_inputs conformance: ✅ passed (selection: -k emoji)"
    )


def test_a_deselection_from_anywhere_else_is_named_and_never_a_full_pass(tmp_path, monkeypatch, capsys):
    arguments = suite_session.pytest_arguments
    monkeypatch.setattr(
        suite_session, "pytest_arguments", lambda options, suite: [*arguments(options, suite), "-k", "emoji"]
    )
    report = tmp_path / "r.json"
    code = main(["run", "--in-process", "--fuzz", "0", "--json", str(report)])
    data = _report(report)
    selection = f"{SCENARIOS - 3} scenarios deselected outside the command line"
    assert (code, data["outcome"], data["selection"]) == (0, "passed", selection)
    assert capsys.readouterr().out.splitlines()[0] == (
        f"ccweb_list_user_inputs conformance: PASSED (selection: {selection})"
    )


def test_the_pytest_command_line_loads_no_conftest_and_no_ini_file(tmp_path):
    words = suite_session.pytest_arguments(suite_session.Selection(), tmp_path / "test_conformance.py")
    assert (words[1:3], "--noconftest" in words, "--disable-plugin-autoload" in words) == (
        ["-c", os.devnull],
        True,
        True,
    )
