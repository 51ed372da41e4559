"""The whole suite passes against the reference over HTTP started by the runner, in both MCP eras."""

from __future__ import annotations

import pytest
from runner.suite.whole_runs import ERA_VERSIONS, REFERENCE, assert_all_passed, run_report

pytestmark = pytest.mark.slow

HTTP_CMD = f"{REFERENCE} --http --port {{port}}"
HTTP_URL = "http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_http_started_by_the_runner(tmp_path, era):
    code, report = run_report(tmp_path, "--http-cmd", HTTP_CMD, "--url", HTTP_URL, "--protocol", era)
    assert_all_passed(code, report, "http", ERA_VERSIONS[era])
