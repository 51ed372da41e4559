"""One run's state, created once per command by its session and passed down: nothing of a run lives in a module.

What the run started (:class:`~ccweb_conformance.transport.census.Census`), its fork server
(:class:`~ccweb_conformance.transport.zygote_client.ForkServer`), how its leftovers are found and which were
stopped (:class:`~ccweb_conformance.transport.reaper.Reaping`), which signal stopped it
(:class:`~ccweb_conformance.transport.signals.InterruptState`; the handlers are the process's, the record the
run's), its HTTP connections, shut by the signal that stops it
(:class:`~ccweb_conformance.transport.connections.OpenConnections`), the contract's waits
(:class:`~ccweb_conformance.transport.waits.Waits`), the threads or processes the runner could not start (for
``transport.limits.process_limit_problem``) and what a declared outputSchema said of each result already judged
(``checks.outcome``). Two runs in one process share none of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ccweb_conformance.transport.census import Census
from ccweb_conformance.transport.connections import OpenConnections
from ccweb_conformance.transport.reaper import Reaping
from ccweb_conformance.transport.signals import InterruptState
from ccweb_conformance.transport.waits import Waits
from ccweb_conformance.transport.zygote_client import ForkServer

__all__ = ["RunContext"]


@dataclass(eq=False)
class RunContext:
    """One run's state: made where the run starts (``commands/frame.py``), handed to whatever needs a part."""

    interrupt: InterruptState = field(default_factory=InterruptState)
    processes: Census = field(default_factory=Census)
    reaping: Reaping = field(default_factory=Reaping)
    waits: Waits = field(default_factory=Waits)
    exhausted: list[str] = field(default_factory=list)
    """Each time the runner could not start a thread or process (it went on without it): the limit was reached."""
    seen_results: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    """What a declared outputSchema said of each result already judged, by the schema's and the result's JSON."""
    connections: OpenConnections = field(default_factory=OpenConnections)
    """The sockets of its HTTP connections: the signal that stops the run shuts them, so a read waiting on a server
    the run did not start (``--url``) ends at once."""
    fork_server: ForkServer = field(init=False)

    def __post_init__(self) -> None:
        self.fork_server = ForkServer(self.processes, self.reaping)
        self.interrupt.hang_ups.append(self.connections.shut_all)
