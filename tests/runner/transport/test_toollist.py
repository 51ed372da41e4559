"""tools/list across its pages: nextCursor followed, a bounded number of times, every fault named."""

from __future__ import annotations

from typing import Any

from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.toollist import MAX_PAGES, list_all_tools


class Pages:
    """A stand-in client whose tools/list answers are scripted by cursor."""

    def __init__(self, pages: dict[Any, Any]) -> None:
        self.pages = pages
        self.cursors: list[Any] = []

    def request(self, method: str, params: dict[str, Any] | None = None) -> Exchange:
        assert method == "tools/list"
        cursor = None if params is None else params["cursor"]
        self.cursors.append(cursor)
        return Exchange(request={"params": params}, response={"jsonrpc": "2.0", "id": 1, "result": self.pages[cursor]})


def tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}}


def test_one_page() -> None:
    listing = list_all_tools(Pages({None: {"tools": [tool("a")]}}))  # type: ignore[arg-type]
    assert (listing.tools, listing.problem, len(listing.exchanges)) == ([tool("a")], None, 1)


def test_pages_are_followed_and_duplicates_kept() -> None:
    client = Pages({None: {"tools": [tool("a")], "nextCursor": "2"}, "2": {"tools": [tool("b"), tool("a")]}})
    listing = list_all_tools(client)  # type: ignore[arg-type]
    assert client.cursors == [None, "2"]
    assert listing.tools == [tool("a"), tool("b"), tool("a")]
    assert listing.named("a") == [tool("a"), tool("a")]
    assert listing.problem is None


def test_a_repeated_cursor_ends_the_listing() -> None:
    client = Pages({None: {"tools": [], "nextCursor": "x"}, "x": {"tools": [], "nextCursor": "x"}})
    listing = list_all_tools(client)  # type: ignore[arg-type]
    assert listing.problem == "page 2 of tools/list repeats nextCursor 'x': the pages never end"
    assert client.cursors == [None, "x"]


def test_the_page_count_is_bounded() -> None:
    pages: dict[Any, Any] = {None: {"tools": [], "nextCursor": "1"}}
    pages.update({str(n): {"tools": [], "nextCursor": str(n + 1)} for n in range(1, MAX_PAGES + 5)})
    client = Pages(pages)
    listing = list_all_tools(client)  # type: ignore[arg-type]
    assert listing.problem == f"tools/list still had a nextCursor after {MAX_PAGES} pages, the most the runner follows"
    assert len(client.cursors) == MAX_PAGES


def test_a_page_without_tools_and_a_cursor_that_is_no_string() -> None:
    assert list_all_tools(Pages({None: {"nope": []}})).problem == "page 1 of tools/list has no tools array"  # type: ignore[arg-type]
    listing = list_all_tools(Pages({None: {"tools": [], "nextCursor": 3}}))  # type: ignore[arg-type]
    assert listing.problem == "page 1 of tools/list has a nextCursor that is not a string: 3"
