"""The server on the TypeScript SDK v2 (bench/node-sdk-v2) passes the whole suite over stdio, in both eras.

It is the benchmark's conforming both-era target and a second implementation beside the Node
example: no failure and no warning. The SDK v2 answers non-object arguments -32602 itself, so
ARG-8 (SHOULD) passes where the example's SDK v1 only warns (D-13); the handler validates the
arguments, since the SDK's own input check would answer without a code. Node and npm are required,
as for the example: a missing one is a failure with a clear message, never a skip.
"""

from __future__ import annotations

import json
import shlex

import pytest
from node_example import EXAMPLE, NODE_SDK_V2, ensure_node_modules, require, whole_run
from suite_size import ALL_PASSED_STDIO as ALL_PASSED

pytestmark = pytest.mark.slow

SDK_PACKAGE = "@modelcontextprotocol/server"


@pytest.fixture(scope="module")
def node_sdk_v2_server() -> str:
    """The stdio command of the server, after `npm ci` where node_modules is missing (its own and the example's)."""
    node = require("node")
    ensure_node_modules(EXAMPLE)  # the imported tool logic's ajv
    ensure_node_modules(NODE_SDK_V2)
    return f"{shlex.quote(node)} {shlex.quote(str(NODE_SDK_V2 / 'server.js'))}"


def test_the_sdk_v2_server_passes_the_whole_suite_in_both_eras(tmp_path, node_sdk_v2_server):
    _, report = whole_run(node_sdk_v2_server, tmp_path / "report.json")
    not_passed = [(s["name"], s["status"]) for s in report["scenarios"] if s["status"] != "passed"]
    assert report["counts"]["failed"] == 0, not_passed
    assert report["counts"] == ALL_PASSED, not_passed  # no warning either
    assert [r["id"] for r in report["requirements"] if r["status"] != "passed"] == []
    # D-16: the default run found both eras and tested each.
    assert (report["outcome"], report["transport"]) == ("passed", "stdio")
    assert (report["protocolVersions"], report["oneEraReason"]) == (["2026-07-28", "2025-11-25"], None)


def test_the_sdk_v2_server_pins_exact_versions_and_ignores_node_modules():
    package = json.loads((NODE_SDK_V2 / "package.json").read_text(encoding="utf-8"))
    assert package["dependencies"] == {SDK_PACKAGE: package["dependencies"][SDK_PACKAGE]}
    assert all(version[0].isdigit() for version in package["dependencies"].values()), package["dependencies"]
    lock = json.loads((NODE_SDK_V2 / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"][f"node_modules/{SDK_PACKAGE}"]["version"] == package["dependencies"][SDK_PACKAGE]
    assert "node_modules/" in (NODE_SDK_V2 / ".gitignore").read_text(encoding="utf-8").splitlines()
