"""The CI gate: action.yml is a well-formed composite action, and docs/ci.md's recipes use real options."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import REPO as ROOT

from ccweb_conformance.cli import main

ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
CI_DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
INPUT_REFERENCE = re.compile(r"\binputs\.([A-Za-z0-9_-]+)")
LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")
ACTION_USES = re.compile(r"^[\w.-]+/ccweb-list-user-inputs-kit@")


@pytest.fixture(scope="module")
def listed_options() -> set[str]:
    """The long options that ``ccweb-conformance run --help`` lists."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), pytest.raises(SystemExit):
        main(["run", "--help"])
    options = set(re.findall(r"^\s{2}(?:-\w, )?(--[a-z][a-z-]*)", buffer.getvalue(), re.MULTILINE))
    assert {"--stdio", "--http-cmd", "--url", "--junitxml", "--markdown", "--expected-failures"} <= options
    return options


def walk_strings(node: Any) -> Iterator[str]:
    """Every string in a parsed YAML document."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from walk_strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from walk_strings(item)


def yaml_blocks() -> list[Any]:
    """The parsed fenced ```yaml blocks of docs/ci.md."""
    blocks = re.findall(r"^```yaml\n(.*?)^```$", CI_DOC, re.MULTILINE | re.DOTALL)
    return [yaml.safe_load(textwrap.dedent(block)) for block in blocks]


def steps_of(document: Any) -> Iterator[dict[str, Any]]:
    """Every mapping with a ``uses`` or ``run`` key (a GitHub step) anywhere in a document."""
    if isinstance(document, dict):
        if "uses" in document or "run" in document:
            yield document
        for value in document.values():
            yield from steps_of(value)
    elif isinstance(document, list):
        for item in document:
            yield from steps_of(item)


def test_action_is_composite_with_named_inputs_and_shells():
    assert ACTION["runs"]["using"] == "composite"
    assert ACTION["name"] == "ccweb_list_user_inputs conformance"
    for name, spec in ACTION["inputs"].items():
        assert set(spec) == {"description", "required", "default"}, name
        assert spec["required"] is False, name
    for step in ACTION["runs"]["steps"]:
        assert ("run" in step) != ("uses" in step), step["name"]
        if "run" in step:
            assert step["shell"] == "bash", step["name"]
            assert step["run"].startswith("set -euo pipefail\n"), step["name"]


def test_action_references_exactly_its_declared_inputs():
    referenced = set(INPUT_REFERENCE.findall(yaml.safe_dump(ACTION["runs"]) + yaml.safe_dump(ACTION["outputs"])))
    assert referenced == set(ACTION["inputs"])


def test_action_scripts_read_inputs_only_through_their_environment():
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
            used = set(re.findall(r"\$\{?([A-Z_]+)", step["run"]))
            assert set(step["env"]) <= used, step["name"]


def test_action_runs_the_suite_with_listed_options(listed_options: set[str]):
    script = ACTION["runs"]["steps"][-1]["run"]
    assert re.search(r'\n *"\$kit/ccweb-conformance" "\$\{args\[@\]\}"\n *code=\$\?\n', script)
    used = set(LONG_OPTION.findall(script))
    # every option of ccweb-conformance run has an input, but the kit's own --in-process and two options of a
    # developer's loop: a CI job starts with no --last-failed record, and --collect-only writes no report
    assert used == listed_options - {"--in-process", "--help", "--lf", "--co"}  # --help shows their short form first
    assert used <= listed_options


def test_ci_doc_commands_use_only_listed_options(listed_options: set[str]):
    commands = [
        text[text.index("ccweb-conformance run") :]
        for block in yaml_blocks()
        for text in walk_strings(block)
        if "ccweb-conformance run" in text
    ]
    assert len(commands) == 2  # the plain GitHub steps and GitLab CI
    for command in commands:
        options = {token for token in shlex.split(command) if token.startswith("--")}
        assert {"--stdio", "--junitxml", "--markdown", "--expected-failures"} <= options
        assert options <= listed_options, command


def test_ci_doc_uses_the_action_with_declared_inputs_only():
    uses = [step for block in yaml_blocks() for step in steps_of(block) if ACTION_USES.match(step.get("uses", ""))]
    assert len(uses) == 2
    for step in uses:
        assert set(step["with"]) <= set(ACTION["inputs"]), step["with"]


def test_gitlab_recipe_publishes_junit_even_on_failure():
    gitlab = next(block for block in yaml_blocks() if isinstance(block, dict) and "ccweb-conformance" in block)
    artifacts = gitlab["ccweb-conformance"]["artifacts"]
    assert artifacts["when"] == "always"
    assert artifacts["reports"]["junit"] == "ccweb-conformance-junit.xml"


PINNED = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")


def test_actions_are_pinned_by_commit():
    uses = [step["uses"] for step in ACTION["runs"]["steps"] if "uses" in step]
    assert uses == [
        "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97",
        "actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae",
        "actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae",
    ]
    assert all(PINNED.match(u) for u in uses)


def test_the_jobs_python_is_left_alone_and_pip_is_cached():
    setup = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "python")
    assert setup["with"]["update-environment"] is False
    cache = next(step for step in ACTION["runs"]["steps"] if step["name"].startswith("Cache pip"))
    install = next(step for step in ACTION["runs"]["steps"] if step["name"].startswith("Install"))
    assert cache["with"]["path"] == install["env"]["PIP_CACHE_DIR"] == "${{ runner.temp }}/ccweb-kit-pip"
    assert '-m venv "$RUNNER_TEMP/ccweb-kit"' in install["run"]


def test_every_shell_step_is_valid_bash(tmp_path):
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            script = tmp_path / "step.sh"
            script.write_text(step["run"], encoding="utf-8")
            assert subprocess.run(["bash", "-n", str(script)], timeout=30, check=False).returncode == 0, step["name"]


def run_step(
    tmp_path: Path, inputs: dict[str, str], environ: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    """Execute the action's run step as the runner would: inputs through env, a fake GITHUB_OUTPUT."""
    step = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "run")
    kit = tmp_path / "runner-temp" / "ccweb-kit" / "bin"
    kit.mkdir(parents=True)
    for name in ("python", "ccweb-conformance"):  # the venv the install step makes: this one
        (kit / name).symlink_to(Path(sys.executable).parent / name)
    values = {name: spec["default"] for name, spec in ACTION["inputs"].items()} | inputs
    env = {key: re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: values[m[1]], value)
           for key, value in step["env"].items()}
    env["ACTION_PATH"] = str(ROOT)
    output, summary = tmp_path / "github-output", tmp_path / "step-summary.md"
    env |= {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "RUNNER_TEMP": str(tmp_path / "runner-temp"),
            "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)} | (environ or {})
    done = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    lines = output.read_text(encoding="utf-8").splitlines() if output.exists() else []
    return done.returncode, dict(line.split("=", 1) for line in lines), done.stdout + done.stderr


def test_the_run_step_runs_locally_and_sets_the_outputs(tmp_path):
    code, outputs, log = run_step(tmp_path, {"args": "--in-process --tags 'AC-1'", "cucumberjson": "c.json"})
    assert code == 0, log
    runner_temp = tmp_path / "runner-temp"
    assert outputs == {
        "outcome": "passed", "exit-code": "0", "junitxml": "ccweb-conformance-junit.xml",
        "json": f"{runner_temp}/ccweb-conformance.json", "markdown": str(tmp_path / "step-summary.md"),
        "cucumberjson": "c.json", "total": "6", "passed": "6", "failed": "0", "warnings": "0", "xfailed": "0",
        "xpassed": "0",
    }
    assert (tmp_path / "ccweb-conformance-junit.xml").is_file() and (tmp_path / "c.json").is_file()
    assert (tmp_path / "step-summary.md").read_text(encoding="utf-8").startswith(
        "## ccweb_list_user_inputs conformance: ✅ passed"
    )


def test_the_run_step_reports_an_error_outcome(tmp_path):
    code, outputs, log = run_step(tmp_path, {"stdio": "true", "header": "Authorization: Bearer T\nX-A: b\n"})
    assert code == 2
    assert (outputs["outcome"], outputs["exit-code"], "total" in outputs) == ("error", "2", False)
    assert "--header needs an HTTP target" in log


@pytest.mark.parametrize("inputs", [{}, {"stdio": "", "url": "", "args": "--tags AC-1"}])
def test_the_run_step_refuses_to_run_without_a_target(tmp_path, inputs):
    """An unset variable gives an empty input: the kit would test its own reference and pass."""
    code, outputs, log = run_step(tmp_path, inputs)
    assert (code, outputs["outcome"], outputs["exit-code"], "total" in outputs) == (2, "error", "2", False)
    assert log.startswith("::error title=ccweb conformance::no implementation to test: the inputs stdio, http-cmd and ")
    assert not (tmp_path / "ccweb-conformance-junit.xml").exists()


def test_the_action_offers_every_report_format_of_run_as_an_input_and_an_output():
    from ccweb_conformance.commands.report_formats import formats  # noqa: PLC0415

    reports = {f.option for f in formats("run")}
    assert reports == {"junitxml", "json", "cucumberjson", "markdown"}
    assert reports <= set(ACTION["inputs"])
    assert reports <= set(ACTION["outputs"])
    script = next(step["run"] for step in ACTION["runs"]["steps"] if step.get("id") == "run")
    for option in reports:
        assert f"--{option} " in script, option


def test_a_command_input_expands_environment_variables_as_a_shell_step_would(tmp_path):
    """``stdio: $RUNNER_TEMP/server`` names the file a shell step would (it exited 2 as a literal ``$RUNNER_TEMP``)."""
    code, outputs, log = run_step(tmp_path, {"stdio": '"$RUNNER_TEMP/my server" --dir ${SERVER_DIR}'},
                                  {"SERVER_DIR": "/srv/x"})
    assert (code, outputs["outcome"]) == (2, "error")
    assert f"command not found or not executable: '{tmp_path}/runner-temp/my server'" in log
    assert "$RUNNER_TEMP" not in log


def test_an_unset_variable_in_a_command_expands_to_nothing_with_a_warning(tmp_path):
    code, _, log = run_step(tmp_path, {"stdio": "$NOT_SET_ANYWHERE/server"})
    assert code == 2
    assert ("::warning title=ccweb conformance::stdio: $NOT_SET_ANYWHERE is not set; it expands to nothing, as in a "
            "shell step") in log
    assert "command not found or not executable: '/server'" in log


def test_a_path_input_expands_too(tmp_path):
    code, outputs, log = run_step(tmp_path, {"args": "--in-process --tags AC-1", "json": "$RUNNER_TEMP/out.json"})
    assert code == 0, log
    assert outputs["json"] == f"{tmp_path}/runner-temp/out.json"
    assert (tmp_path / "runner-temp" / "out.json").is_file()


def _expander() -> Any:
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("action_expand", ROOT / "scripts" / "action_expand.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("text", "expected"), [
    ("node $D/s.js", "node /a b/s.js"),  # unquoted: the value splits, as in bash
    ('node "$D/s.js"', 'node "/a b/s.js"'),
    ("node '$D/s.js'", "node '$D/s.js'"),  # single quotes: nothing expands
    ("node ${D}x \\$D", "node /a bx $D"),
    ('node "\\$D"', 'node "$D"'),
    ("node $Q", "node it\\'s \\\"q\\\""),  # quote characters of a value stay literal
    ('node "$Q"', 'node "it\'s \\"q\\""'),
])
def test_commands_expand_like_bash(text, expected):
    environ = {"D": "/a b", "Q": "it's \"q\""}
    expanded = _expander().expand_command(text, environ)
    assert expanded == expected
    bash = subprocess.run(["bash", "-c", f"printf '%s\\n' {text}"], env=environ | {"PATH": os.environ["PATH"]},
                          capture_output=True, text=True, timeout=30, check=True).stdout.splitlines()
    assert shlex.split(expanded) == bash  # the words the runner splits are the shell's


def test_what_is_not_a_variable_name_is_kept_as_written():
    assert _expander().expand_command("cost $5 $$ ${ x $", {}) == "cost $5 $$ ${ x $"


def test_values_expand_without_quotes():
    unset: list[str] = []
    assert _expander().expand_value("$HOME/'x' \\$Y ${Z}", {"HOME": "/h"}, unset) == "/h/'x' $Y "
    assert unset == ["Z"]


def kit_step(tmp_path: Path, inputs: dict[str, str], environ: dict[str, str]) -> tuple[int, dict[str, str], str]:
    """Run the step that names the kit's environment (what pip installs, the cache key)."""
    step = next(step for step in ACTION["runs"]["steps"] if step.get("id") == "kit")
    values = {name: spec["default"] for name, spec in ACTION["inputs"].items()} | inputs
    env = {key: re.sub(r"\$\{\{ inputs\.([\w-]+) \}\}", lambda m: values[m[1]], value)
           for key, value in step["env"].items() if "inputs." in value}
    output = tmp_path / "github-output"
    output.unlink(missing_ok=True)
    env |= {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GITHUB_OUTPUT": str(output), "RUNNER_OS": "Linux",
            "KIT_PYTHON_VERSION": "3.12.9", "ACTION_REPOSITORY": ""} | environ
    done = subprocess.run(["bash", "-c", step["run"]], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, check=False)
    lines = output.read_text(encoding="utf-8").splitlines() if output.exists() else []
    return done.returncode, dict(line.split("=", 1) for line in lines), done.stdout + done.stderr


def _tiny_kit(folder: Path) -> Path:
    for name in ("conformance/ccweb_conformance/a.py", "reference/r.py", "spec/s.yaml", "features/f.feature"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(name, encoding="utf-8")
    (folder / "pyproject.toml").write_text("[project]\n", encoding="utf-8")
    return folder


def test_the_actions_own_copy_is_cached_by_its_content_at_any_ref(tmp_path):
    kit = _tiny_kit(tmp_path / "_actions" / "org" / "kit" / "feature-branch")
    code, first, log = kit_step(tmp_path, {}, {"ACTION_PATH": str(kit)})
    assert code == 0, log
    assert first["requirement"] == str(kit)
    assert re.fullmatch(r"ccweb-kit-venv-Linux-3\.12\.9-content-[0-9a-f]{16}", first["key"])
    assert first["id"] == first["key"].removeprefix("ccweb-kit-venv-Linux-3.12.9-")
    (kit / "features" / "__pycache__").mkdir()
    (kit / "features" / "__pycache__" / "x.pyc").write_bytes(b"\0")  # not content
    assert kit_step(tmp_path, {}, {"ACTION_PATH": str(kit)})[1] == first
    (kit / "reference" / "r.py").write_text("changed", encoding="utf-8")  # the branch moved
    assert kit_step(tmp_path, {}, {"ACTION_PATH": str(kit)})[1]["key"] != first["key"]


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30,
                          check=True, env=os.environ | {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                                                         "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"},
                          ).stdout.strip()


@pytest.fixture
def kit_remote(tmp_path: Path) -> tuple[Path, str]:
    """A git server holding ``org/kit`` with a branch ``main``, a lightweight tag ``v1`` and an annotated ``v2``."""
    repository = tmp_path / "server" / "org" / "kit"
    repository.mkdir(parents=True)
    _git(repository, "init", "-q", "-b", "main")
    _git(repository, "commit", "-q", "--allow-empty", "-m", "one")
    _git(repository, "tag", "v1")
    _git(repository, "tag", "-a", "v2", "-m", "two")
    return tmp_path / "server", _git(repository, "rev-parse", "HEAD")


@pytest.mark.parametrize("ref", ["main", "v1", "v2", "commit"])
def test_kit_version_installs_a_git_ref_and_caches_it_by_its_commit(tmp_path, kit_remote, ref):
    server, commit = kit_remote
    version = commit if ref == "commit" else ref
    environ = {"ACTION_PATH": str(tmp_path / "_actions" / "org" / "kit" / "v0"), "GITHUB_SERVER_URL": f"file://{server}"}
    code, outputs, log = kit_step(tmp_path, {"kit-version": version}, environ)
    assert code == 0, log
    assert outputs == {
        "requirement": f"ccweb-list-user-inputs-kit @ git+file://{server}/org/kit@{version}",
        "id": f"commit-{commit}",
        "key": f"ccweb-kit-venv-Linux-3.12.9-commit-{commit}",
    }


def test_kit_version_of_an_unknown_ref_is_installed_without_a_cached_environment(tmp_path, kit_remote):
    server, _ = kit_remote
    environ = {"ACTION_PATH": str(tmp_path / "a"), "ACTION_REPOSITORY": "org/kit", "GITHUB_SERVER_URL": f"file://{server}"}
    code, outputs, log = kit_step(tmp_path, {"kit-version": "no-such-branch"}, environ)
    assert code == 0, log
    assert outputs == {"requirement": f"ccweb-list-user-inputs-kit @ git+file://{server}/org/kit@no-such-branch",
                       "id": "commit-unresolved", "key": ""}


def test_kit_version_without_a_known_repository_is_an_error(tmp_path):
    code, outputs, log = kit_step(tmp_path, {"kit-version": "main"}, {"ACTION_PATH": str(tmp_path)})
    assert (code, outputs) == (2, {})
    assert log.startswith("::error title=ccweb conformance::kit-version: the action's repository is unknown here")


def test_kit_source_is_installed_as_given_and_never_cached(tmp_path):
    code, outputs, _ = kit_step(tmp_path, {"kit-source": "./kit.whl", "kit-version": "main"}, {"ACTION_PATH": "/x"})
    assert code == 0
    assert (outputs["requirement"], outputs["key"]) == ("./kit.whl", "")
    assert re.fullmatch(r"source-[0-9a-f]{16}", outputs["id"])


def test_the_venv_cache_and_the_install_use_what_the_kit_step_named():
    steps = {step.get("id") or step["name"]: step for step in ACTION["runs"]["steps"]}
    assert steps["venv"]["if"] == "steps.kit.outputs.key != ''"
    assert steps["venv"]["with"]["key"] == "${{ steps.kit.outputs.key }}"
    install = next(step for step in ACTION["runs"]["steps"] if step["name"].startswith("Install"))
    assert install["env"]["KIT_REQUIREMENT"] == "${{ steps.kit.outputs.requirement }}"
    assert "action_ref" not in yaml.safe_dump(ACTION["runs"])
