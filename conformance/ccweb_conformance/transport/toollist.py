"""``tools/list`` across all its pages: the runner follows ``nextCursor`` (D-16), a bounded number of times."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ccweb_conformance.transport.client import McpClient
    from ccweb_conformance.transport.exchange import Exchange

MAX_PAGES = 50
"""Pages of one listing the runner follows before it calls the listing endless."""


@dataclass
class ToolListing:
    """Every tool of every page, as listed, and why the listing broke off (if it did)."""

    exchanges: list[Exchange] = field(default_factory=list)
    """One exchange per page, in order."""
    tools: list[Any] = field(default_factory=list)
    """The ``tools`` entries of every page, in order (duplicates kept: listing one tool twice is a fault)."""
    problem: str | None = None
    """Why the pages could not all be read: a page without a tools array, a repeated cursor, too many pages."""

    def named(self, name: str) -> list[dict[str, Any]]:
        """Every listed tool with this name."""
        return [tool for tool in self.tools if isinstance(tool, dict) and tool.get("name") == name]


def list_all_tools(client: McpClient, max_pages: int = MAX_PAGES) -> ToolListing:
    """``tools/list``, then one request per ``nextCursor``, until a page has none (at most ``max_pages``)."""
    listing = ToolListing()
    cursor: Any = None
    seen: set[str] = set()
    for page in range(1, max_pages + 1):
        exchange = client.request("tools/list", None if cursor is None else {"cursor": cursor})
        listing.exchanges.append(exchange)
        result = (exchange.response or {}).get("result")
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list):
            listing.problem = f"page {page} of tools/list has no tools array"
            return listing
        listing.tools.extend(tools)
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if cursor is None:
            return listing
        if not isinstance(cursor, str):
            listing.problem = f"page {page} of tools/list has a nextCursor that is not a string: {cursor!r}"
            return listing
        if cursor in seen:
            listing.problem = f"page {page} of tools/list repeats nextCursor {cursor!r}: the pages never end"
            return listing
        seen.add(cursor)
    listing.problem = f"tools/list still had a nextCursor after {max_pages} pages, the most the runner follows"
    return listing
