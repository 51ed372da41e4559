"""README.zh-CN.md: linked from the top of README.md, and starts with the same two commands."""

from __future__ import annotations

import re
from pathlib import Path

from paths import REPO as ROOT


def first_shell_block(path: Path) -> str:
    match = re.search(r"^```sh\n(.*?)^```$", path.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
    assert match is not None, path
    return match.group(1)


def test_the_two_commands_are_identical() -> None:
    english = first_shell_block(ROOT / "README.md")
    assert english.count("python3 -m venv .venv") == 2
    assert first_shell_block(ROOT / "README.zh-CN.md") == english


def test_readme_links_the_chinese_one_under_its_title() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# ccweb_list_user_inputs contract kit"
    assert lines[2] == "English · [中文](README.zh-CN.md)"
    assert (ROOT / "README.zh-CN.md").read_text(encoding="utf-8").splitlines()[2] == "[English](README.md) · 中文"


def test_chinese_readme_covers_node_binding_exit_codes_and_ci() -> None:
    text = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
    for needed in (
        'ccweb-conformance run --stdio "node lib/mcp-server.js"',
        "CC_WEB_SESSIONS_DIR",
        "CCWEB_SESSION_ID",
        "X-CCWeb-Session-Id",
        "--protocol auto",
        "| 130 / 143 / 129 |",
        "artifacts:reports:junit",
        "uses: your-org/ccweb-list-user-inputs-kit@COMMIT",
        "docs/SPEC.zh-CN.md",
    ):
        assert needed in text, needed
    assert text.index("node lib/mcp-server.js") < text.index("--http-cmd")  # Node first
