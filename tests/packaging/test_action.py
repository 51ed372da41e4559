"""The CI gate: action.yml is a well-formed composite action, and docs/ci.md's recipes use real options."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import textwrap
from collections.abc import Iterator
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
    assert script.rstrip().endswith('ccweb-conformance" "${args[@]}"')
    used = set(LONG_OPTION.findall(script))
    assert used == {
        "--protocol",
        "--junitxml",
        "--markdown",
        "--stdio",
        "--http-cmd",
        "--url",
        "--sessions-dir",
        "--expected-failures",
        "--tags",
        "--strict",
        "--json",
    }
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
