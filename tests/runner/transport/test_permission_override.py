"""As root, a server of the runner's own can still be denied a file: started without CAP_DAC_OVERRIDE."""

from __future__ import annotations

import json
import os
import sys

import pytest

from ccweb_conformance.suite.world import TOOL_NAME
from ccweb_conformance.transport.targets import HttpUrlTarget, StdioTarget, reference_command

ROOT_ON_LINUX = sys.platform.startswith("linux") and hasattr(os, "geteuid") and os.geteuid() == 0


def _answer(target: StdioTarget, conversation: str) -> dict:
    result = target.client(None).call_tool(TOOL_NAME, {"conversationId": conversation}).response["result"]
    return result["structuredContent"]


@pytest.mark.skipif(not ROOT_ON_LINUX, reason="only root has the override; as another user mode 000 is denied anyway")
def test_root_reads_a_mode_000_file_but_the_unprivileged_sibling_does_not(tmp_path):
    conversation = "0b5e2f1c-93a7-4d2e-8f61-c4a9d07e3b25"
    path = tmp_path / f"{conversation}.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "private"}]}), encoding="utf-8")
    path.chmod(0)
    target = StdioTarget(reference_command(), tmp_path)
    try:
        sibling = target.without_permission_override()
        assert sibling is not None and sibling is target.without_permission_override()  # made once
        as_root = _answer(target, conversation)
        denied = _answer(sibling, conversation)  # type: ignore[arg-type]
    finally:
        target.close()  # the sibling's processes with it
        path.chmod(0o644)
    assert [item["content"] for item in as_root["items"]] == ["private"]
    assert denied["error"] == {
        "code": "conversation_unreadable",
        "message": "the conversation file cannot be read: Permission denied",
    }


def test_no_override_to_drop_where_the_runner_is_not_root_or_the_server_is_not_its_own(monkeypatch, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert StdioTarget(reference_command(), tmp_path).without_permission_override() is None
    monkeypatch.setattr(HttpUrlTarget, "__init__", lambda self, *a, **k: None)
    assert HttpUrlTarget("http://127.0.0.1:1/mcp", tmp_path).without_permission_override() is None
