"""Steps for a stdio server's lifecycle rules: nothing more for a cancelled call (PROTO-5), a prompt exit once its
standard input ends (PROTO-6). Both read a connection bound to the scenario's own conversation, which no other
scenario uses, and show as not run over HTTP, where neither rule is about a connection's own stream."""

from __future__ import annotations

import contextlib
import subprocess
import time
from dataclasses import dataclass
from typing import Any

from ccweb_conformance.checks.failures import fail
from ccweb_conformance.engine.executor import StepSkipped
from ccweb_conformance.engine.registry import parse, then, when
from ccweb_conformance.suite.world import TOOL_NAME, World
from ccweb_conformance.transport.channel import Heard, id_key
from ccweb_conformance.transport.client import McpClient

CANCEL_AFTER = 0.05
"""Seconds after the call was sent that its cancellation is sent: well inside the 200 ms a D-14 server re-reads a
conversation file that does not parse, and long enough for the request to have reached the server."""
CANCEL_ATTEMPTS = 3
"""Calls made, each cancelled in flight unless answered first, before the scenario is left not judged."""
LISTEN_SLICE_S = 0.05
"""How long the runner listens at a time after a cancellation, so that it sees an answer it waits for soon."""
CANCEL_OVER_HTTP = (
    "over Streamable HTTP a client cancels a call by closing its SSE stream, not with notifications/cancelled:"
    " not run over HTTP"
)
EXIT_OVER_HTTP = "an HTTP server has no standard input of the runner's to end: not run over HTTP"
EXIT_IN_PROCESS = "the in-process reference has no process of its own to exit: not run in process"


@dataclass(frozen=True)
class CancelledCall:
    """A call cancelled while in flight, or one whose answer came before the server could have read its
    cancellation."""

    request_id: int
    sent_at: float
    answered: Heard | None
    """Its answer, when it came before the cancellation was sent, or before the answer to a request sent after it:
    then nothing can be judged."""
    cancelled_at: float | None
    pacer_id: int | None = None
    """The same call, sent uncancelled once the server had read the cancellation: its pace for that work."""
    heard: tuple[Heard, ...] = ()
    """What came after the server had read the cancellation, while the step waited for the proof of it."""


def _about(message: Any, request_id: int) -> bool:
    """Whether ``message`` is for that request: its answer, or a message naming it (``params.requestId``)."""
    if not isinstance(message, dict):
        return False
    if "method" not in message and "id" in message:
        return id_key(message["id"]) == id_key(request_id)
    params = message.get("params")
    return isinstance(params, dict) and "requestId" in params and id_key(params["requestId"]) == id_key(request_id)


@when("I call the tool with no arguments and cancel the call while it is in flight")
def call_and_cancel(world: World) -> None:
    """PROTO-5: a tools/call sent without waiting, then ``notifications/cancelled`` for its id ``CANCEL_AFTER``
    seconds later and, at once, a tools/list: a server reads its input in order, so once it answered the tools/list
    it had read the cancellation. A call answered before the cancellation was sent, or before that answer (the
    server had not read the cancellation yet, a crossing MCP allows: a loaded machine), is made again, up to
    ``CANCEL_ATTEMPTS`` calls in all; if none was cancelled in flight, the Then step does not judge. Once one was,
    the same call is sent again, uncancelled: its answer tells the Then step how long this server takes for that
    work."""
    if world.target.transport == "http":
        raise StepSkipped(CANCEL_OVER_HTTP)
    client = world.client()
    for _ in range(CANCEL_ATTEMPTS):
        sent_at = time.monotonic()
        request_id = _start(world, "tools/call", {"name": TOOL_NAME, "arguments": {}})
        with world.context.waits.waited("cancellation window"):
            heard = client.listen(CANCEL_AFTER) or []
        answered = next((h for h in heard if _about(h.message, request_id)), None)
        if answered is not None:
            world.cancelled = CancelledCall(request_id, sent_at, answered, None)
            continue
        world.record(client.notify("notifications/cancelled", {"requestId": request_id, "reason": "conformance check"}))
        cancelled_at = time.monotonic()
        probe_id = _start(world, "tools/list", None)
        with world.context.waits.waited("cancellation window"):
            heard, probed = _listen_past(client, probe_id, cancelled_at + client.timeout, 0.0)
        split = 0 if probed is None else probed + 1  # never answered: everything heard counts as after the probe
        crossed = next((h for h in heard[:split] if _about(h.message, request_id)), None)
        if crossed is None:
            pacer_id = _start(world, "tools/call", {"name": TOOL_NAME, "arguments": {}})
            world.cancelled = CancelledCall(request_id, sent_at, None, cancelled_at, pacer_id, tuple(heard[split:]))
            return
        world.cancelled = CancelledCall(request_id, sent_at, crossed, cancelled_at)


def _start(world: World, method: str, params: dict[str, Any] | None) -> int:
    """A request sent without waiting for its answer, whose answer, whenever it comes, fails no later exchange."""
    client = world.client()
    request_id, exchange = client.start_request(method, params)
    world.exchanges.append(exchange)
    client.tolerate_late_answer(request_id)
    return request_id


@then(parse("nothing came for the cancelled call within {window:d} ms of its cancellation"))
def nothing_after_cancel(world: World, window: int) -> None:
    """PROTO-5: once the server had read the cancellation, the connection read for ``window`` ms after the
    cancellation, and after the answer to the same call sent uncancelled beside it; any message for the cancelled
    call fails it."""
    cancelled = world.cancelled
    if not isinstance(cancelled, CancelledCall):
        raise AssertionError("the scenario cancelled no call")
    if cancelled.pacer_id is None or cancelled.cancelled_at is None:  # answered first, or the answer crossed
        elapsed = ((cancelled.answered.at if cancelled.answered else time.monotonic()) - cancelled.sent_at) * 1000
        raise StepSkipped(
            f"not judged: none of the {CANCEL_ATTEMPTS} calls was cancelled in flight: each was answered before its"
            " cancellation was sent or before the server answered a request sent after it (the server had not read"
            " it yet: a loaded machine, or a server that reads a request only once it answered the one before), the"
            f" last {elapsed:.0f} ms after it was sent (a conversation file that does not parse keeps a server"
            " re-reading it for at least 200 ms, D-14)"
        )
    with world.context.waits.waited("cancellation window"):  # a server a loaded machine slowed down ends the
        # cancelled call about when it answers the same call sent uncancelled: a late message is still heard
        limit = cancelled.cancelled_at + window / 1000 + world.client().timeout
        heard, _ = _listen_past(world.client(), cancelled.pacer_id, limit, window / 1000)
    about = [h for h in [*cancelled.heard, *heard] if _about(h.message, cancelled.request_id)]
    if about:
        after = (about[0].at - cancelled.cancelled_at) * 1000
        raise fail(
            f"PROTO-5: a message for request {cancelled.request_id} came {after:.0f} ms after the client cancelled it"
            " (notifications/cancelled), and after the server answered a request sent after the cancellation: a"
            " cancelled request gets no further message",
            expected="no message for the cancelled request",
            actual=about[0].message,
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="PROTO-5",
        )


def _listen_past(client: McpClient, request_id: int, limit: float, window: float) -> tuple[list[Heard], int | None]:
    """What came until ``window`` after the answer to ``request_id``, and where that answer is in it (None: it never
    came). Bounded by ``limit``, and ended by the end of the server's output (it exited, or the run stopped it on a
    signal): nothing more can come."""
    heard: list[Heard] = []
    answer: int | None = None
    while (now := time.monotonic()) < limit and (answer is None or now < heard[answer].at + window):
        got = client.listen(min(LISTEN_SLICE_S, limit - now))
        if got is None:
            break
        heard.extend(got)
        if answer is None:
            answer = next((i for i, h in enumerate(heard) if _about(h.message, request_id)), None)
    return heard, answer


@then(parse("the server exits within {seconds:d} s once its standard input ends"))
def exits_at_end_of_input(world: World, seconds: int) -> None:
    """PROTO-6: the standard input of the scenario's own server closed; it must exit within ``seconds``."""
    if world.target.transport == "http":
        raise StepSkipped(EXIT_OVER_HTTP)
    process = world.target.server_process(world.source, world.lane)
    if process is None:
        raise StepSkipped(EXIT_IN_PROCESS)
    world.client().broken = True  # its input is closed: the connection is never used again
    stdin = process.popen.stdin
    closed_at = time.monotonic()
    if stdin is not None:
        with contextlib.suppress(OSError):
            stdin.close()
    try:
        with world.context.waits.waited("exit at end of input"):
            process.popen.wait(seconds)
    except subprocess.TimeoutExpired:
        raise fail(
            f"PROTO-6: the server was still running {seconds} s after its standard input closed: a stdio server"
            " exits promptly when its input ends",
            expected=f"an exit within {seconds} s",
            actual=f"still running after {time.monotonic() - closed_at:.1f} s",
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="PROTO-6",
        ) from None
