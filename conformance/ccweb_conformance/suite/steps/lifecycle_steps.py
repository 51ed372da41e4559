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
CANCEL_LATE_S = 0.15
"""Seconds after the call was sent past which its cancellation is late: a runner held up that long (a loaded machine)
may send it as the answer is already on its way, a crossing MCP allows, so that call is made again."""
CANCEL_ATTEMPTS = 3
"""Calls made, each cancelled in flight unless answered first or cancelled late, before the step gives up."""
LISTEN_SLICE_S = 0.05
"""How long the runner listens at a time after a cancellation, so that it sees the uncancelled call's answer soon."""
CANCEL_OVER_HTTP = (
    "over Streamable HTTP a client cancels a call by closing its SSE stream, not with notifications/cancelled:"
    " not run over HTTP"
)
EXIT_OVER_HTTP = "an HTTP server has no standard input of the runner's to end: not run over HTTP"
EXIT_IN_PROCESS = "the in-process reference has no process of its own to exit: not run in process"


@dataclass(frozen=True)
class CancelledCall:
    """A call cancelled while in flight (or answered before its cancellation could be sent)."""

    request_id: int
    sent_at: float
    answered: Heard | None
    """Its answer, when it came before the cancellation was sent: then nothing can be judged."""
    cancelled_at: float | None
    pacer_id: int | None = None
    """The same call, sent uncancelled right after the cancellation: the server's own pace for that work."""


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
    seconds later, unless it was answered first or the cancellation went later than ``CANCEL_LATE_S``: then the call
    is made again, up to ``CANCEL_ATTEMPTS`` calls in all (a runner descheduled on a loaded machine can miss the
    window), and if no call was cancelled in time, the Then step does not judge. Once a call is cancelled, the same
    call is sent again, uncancelled: its answer tells the Then step how long this server takes for that work."""
    if world.target.transport == "http":
        raise StepSkipped(CANCEL_OVER_HTTP)
    client = world.client()
    for _ in range(CANCEL_ATTEMPTS):
        sent_at = time.monotonic()
        request_id, exchange = client.start_request("tools/call", {"name": TOOL_NAME, "arguments": {}})
        world.exchanges.append(exchange)
        with world.context.waits.waited("cancellation window"):
            heard = client.listen(CANCEL_AFTER) or []
        answered = next((h for h in heard if _about(h.message, request_id)), None)
        cancelled_at = None
        if answered is None:
            cancel = {"requestId": request_id, "reason": "conformance check"}
            world.record(client.notify("notifications/cancelled", cancel))
            cancelled_at = time.monotonic()
        client.tolerate_late_answer(request_id)  # a late answer on this connection fails no later exchange
        if cancelled_at is not None and cancelled_at - sent_at <= CANCEL_LATE_S:
            pacer_id, pacer = client.start_request("tools/call", {"name": TOOL_NAME, "arguments": {}})
            world.exchanges.append(pacer)
            client.tolerate_late_answer(pacer_id)
            world.cancelled = CancelledCall(request_id, sent_at, None, cancelled_at, pacer_id)
            return
        world.cancelled = CancelledCall(request_id, sent_at, answered, cancelled_at)


@then(parse("nothing came for the cancelled call within {window:d} ms of its cancellation"))
def nothing_after_cancel(world: World, window: int) -> None:
    """PROTO-5: the connection read for ``window`` ms after the cancellation, and after the answer to the same call
    sent uncancelled beside it; any message for the cancelled call fails it."""
    cancelled = world.cancelled
    if not isinstance(cancelled, CancelledCall):
        raise AssertionError("the scenario cancelled no call")
    if cancelled.pacer_id is None or cancelled.cancelled_at is None:
        ended_at = cancelled.answered.at if cancelled.answered else cancelled.cancelled_at or time.monotonic()
        raise StepSkipped(
            f"not judged: none of the {CANCEL_ATTEMPTS} calls was cancelled in flight: each was answered before its"
            f" cancellation could be sent, or the runner, held up, sent it later than {CANCEL_LATE_S * 1000:.0f} ms,"
            f" the last {(ended_at - cancelled.sent_at) * 1000:.0f} ms after the call was sent (a conversation file"
            " that does not parse keeps a server re-reading it for at least 200 ms, D-14)"
        )
    with world.context.waits.waited("cancellation window"):
        heard = _heard_after_cancel(world.client(), cancelled, window / 1000)
    about = [h for h in heard if _about(h.message, cancelled.request_id)]
    if about:
        after = (about[0].at - cancelled.cancelled_at) * 1000
        raise fail(
            f"PROTO-5: a message for request {cancelled.request_id} came {after:.0f} ms after the client cancelled it"
            " (notifications/cancelled): a cancelled request gets no further message",
            expected="no message for the cancelled request",
            actual=about[0].message,
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="PROTO-5",
        )


def _heard_after_cancel(client: McpClient, cancelled: CancelledCall, window: float) -> list[Heard]:
    """What came until ``window`` after the answer to the same call sent uncancelled beside the cancelled one: a
    server slowed down (a loaded machine) ends the cancelled call about when it answers that one, so a late message
    for the cancelled call is still heard. Bounded by the client's per-request timeout after the cancellation, and
    ended by the end of the server's output (it exited, or the run stopped it on a signal): nothing more can come."""
    assert cancelled.cancelled_at is not None and cancelled.pacer_id is not None
    pacer_id = cancelled.pacer_id
    limit = cancelled.cancelled_at + window + client.timeout
    heard: list[Heard] = []
    paced_at: float | None = None
    while (now := time.monotonic()) < limit and (paced_at is None or now < paced_at + window):
        got = client.listen(min(LISTEN_SLICE_S, limit - now))
        if got is None:
            break
        heard.extend(got)
        if paced_at is None:
            paced_at = next((h.at for h in got if _about(h.message, pacer_id)), None)
    return heard


@then(parse("the server exits within {seconds:d} s once its standard input ends"))
def exits_at_end_of_input(world: World, seconds: int) -> None:
    """PROTO-6: the standard input of the scenario's own server closed; it must exit within ``seconds``."""
    if world.target.transport == "http":
        raise StepSkipped(EXIT_OVER_HTTP)
    process = world.target.server_process(world.source, world.lane)
    if process is None:
        raise StepSkipped(EXIT_IN_PROCESS)
    client = world.client()
    client.broken = True  # its input is closed: the connection is never used again
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
