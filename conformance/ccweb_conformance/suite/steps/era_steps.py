"""Steps about the two MCP eras (D-16): an implementation that speaks both answers alike in both."""

from __future__ import annotations

from ccweb_conformance.engine.registry import then
from ccweb_conformance.suite.world import World, raise_era_disagreement


@then("every call was answered alike in both eras")
def answered_alike(world: World) -> None:
    """PROTO-4: every tool call of the scenario got the same answer in the other era the server speaks.

    The calls compared themselves (``World.call_and_read``, tools/list in ``World.list_tools``); a server
    that speaks one era, or a run limited to one (``--protocol``), has nothing to compare and passes.
    """
    raise_era_disagreement(world)
