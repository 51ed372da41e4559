"""The reference over stdio, its answers made hostile to the runner's reports.

Usage: hostile_stdio.py   (the reference's own stdio server, CC_WEB_SESSIONS_DIR as usual)
The first item's content of every tools/call result is :data:`HOSTILE` followed by the value of
$API_TOKEN: lines GitHub's runner and Azure's agent act on, Markdown that renders (bold, a link, an
image), runs of backticks and an ANSI clear screen. The scenarios that compare items then fail with
that text as their first difference, and it stands in their transcripts.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from ccweb_reference import cli, core, tool

HOSTILE = (
    "::error::x\n  ##[group]g\na ##vso[task.setvariable]v\n\u2003::warning::w\n"
    "**bold** [l](http://x) ![i](http://x/i.png) ``` `` ` \x1b[2J token "
)


def hostile_list_user_inputs(
    conversation_id: str, messages: Sequence[Any], limit: int, max_chars: int
) -> dict[str, Any]:
    """The reference's answer with the first item's content replaced."""
    result = core.list_user_inputs(conversation_id, messages, limit, max_chars)
    if result.get("items"):
        result["items"][0]["content"] = HOSTILE + os.environ.get("API_TOKEN", "")
    return result


tool.list_user_inputs = hostile_list_user_inputs  # type: ignore[assignment]
sys.exit(cli.main(sys.argv[1:]))
