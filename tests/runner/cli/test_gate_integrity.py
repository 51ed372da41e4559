"""Nothing in the environment changes what a run runs; a run that ran less than the suite never says a full PASSED."""

from __future__ import annotations

import json
import os
import sys

from suite_size import HTTP_ONLY, NOT_IN_PROCESS, ROOT_SKIPS, SCENARIOS

from ccweb_conformance.cli import main

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
        SCENARIOS + 1 - HTTP_ONLY - ROOT_SKIPS - NOT_IN_PROCESS,  # in process: the HTTP-only and own-process ones skip
        None,
    )
    assert (mark.exists(), PLUGIN in sys.modules) == (False, False)
    assert capsys.readouterr().out.splitlines()[0] == "ccweb_list_user_inputs conformance: PASSED"
    assert (os.environ["PYTEST_ADDOPTS"], os.environ["PYTEST_PLUGINS"]) == ("-k 'not description'", PLUGIN)


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
