"""Calls in flight at once (D-15): several connections at a time, or requests pipelined on one.

``overlapping`` runs one sequence of calls per connection on threads of its own, all started
together, so that requests of different connections overlap at the server. ``pipelined`` puts
several ``tools/call`` requests on ONE connection before reading any answer: over stdio all
lines are written first and the answers matched by id as they come, in any order; over HTTP
every request is POSTed at once from its own thread (one session, several requests open).
Every wait is bounded by the client's timeout.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar

from ccweb_conformance.errors import ProtocolFailure
from ccweb_conformance.jsontext import beyond_limits, compact
from ccweb_conformance.transport.client import McpClient
from ccweb_conformance.transport.exchange import Exchange
from ccweb_conformance.transport.linechannel import LineChannel, not_json
from ccweb_conformance.transport.validate import message_violations, reply_id_violations

__all__ = ["overlapping", "pipelined"]

T = TypeVar("T")


def overlapping(work: Sequence[Callable[[], T]]) -> list[T]:
    """Run every callable on a thread of its own, released together; their results in order.

    The first exception raised by any of them is raised here, after all of them ended.
    """
    start = threading.Barrier(len(work))

    def released(job: Callable[[], T]) -> T:
        start.wait(timeout=30.0)
        return job()

    with ThreadPoolExecutor(max_workers=len(work), thread_name_prefix="ccweb-overlap") as pool:
        futures = [pool.submit(released, job) for job in work]
        return [future.result() for future in futures]


def pipelined(
    client: McpClient, name: str, calls: Sequence[dict[str, Any]], *, per_answer: bool = False
) -> list[Exchange]:
    """Send every call on this one connection before any answer is read; one exchange per call, in order.

    Over stdio the answers must all come within the client's timeout; with ``per_answer`` each must come
    within the timeout of the one before, so a server that answers pipelined calls one after the other
    (allowed: each within its own time) is not cut short. Bounded by ``len(calls)`` timeouts.
    """
    requests = client.prepared_calls(name, calls)
    if isinstance(client.channel, LineChannel):
        return _pipelined_lines(client, client.channel, requests, per_answer=per_answer)
    return overlapping([partial(client.send_prepared, request) for request in requests])


def _pipelined_lines(
    client: McpClient, channel: LineChannel, requests: list[dict[str, Any]], *, per_answer: bool = False
) -> list[Exchange]:
    """stdio: write every line, then read until every id is answered (or the timeout passes)."""
    started = time.monotonic()
    try:
        for request in requests:
            channel.io.write_line(compact(request))
    except OSError as exc:
        client.broken = True
        raise ProtocolFailure(f"{channel.label}: could not write to the server: {exc}", None, "closed") from None
    wanted = {json.dumps(r["id"]): r for r in requests}
    renewed = client.timeout if per_answer else 0.0
    answers = _read_answers(client, channel, set(wanted), started + client.timeout, renewed)
    if len(answers) < len(wanted):
        client.broken = True
        missing = [k for k in wanted if k not in answers]
        raise ProtocolFailure(
            f"{channel.label}: {len(missing)} of {len(wanted)} pipelined tools/call requests got no answer "
            f"within {client.timeout:g} s (ids {', '.join(missing[:5])})",
            None,
            "timeout",
        )
    elapsed = (time.monotonic() - started) * 1000.0
    exchanges = []
    for key, request in wanted.items():
        response, line = answers[key]
        violations = message_violations(response, version=client.protocol_version, method="tools/call")
        violations += reply_id_violations(response, request["id"])
        exchanges.append(Exchange(request, response, line, None, elapsed, violations))
    return exchanges


def _read_answers(
    client: McpClient, channel: LineChannel, wanted: set[str], deadline: float, renewed: float = 0.0
) -> dict[str, tuple[dict[str, Any], str]]:
    """The responses to the ``wanted`` ids (JSON text of each id) that came before the deadline, with their lines.

    ``renewed`` > 0: each answer moves the deadline to at least that many seconds after it.
    """
    answers: dict[str, tuple[dict[str, Any], str]] = {}
    while len(answers) < len(wanted):
        try:
            raw = channel.io.read_line(deadline - time.monotonic())
        except TimeoutError:
            break
        if raw is None:
            break
        line = raw.decode("utf-8", errors="replace").strip()
        try:
            message = json.loads(line) if line else None
        except ValueError:
            client.broken = True
            limits = beyond_limits(line)
            what = f"the server wrote {limits}: {line[:200]!r}" if limits else not_json(line)
            raise ProtocolFailure(f"{channel.label}: {what}", None, "garbage") from None
        if not isinstance(message, dict):
            continue
        if "method" in message:  # a notification, or a request of the server's: answered as any exchange would
            if "id" in message:
                channel.io.write_line(compact(client.answer_server_request(message)))
            continue
        key = json.dumps(message.get("id"))
        if key in wanted and key not in answers:
            answers[key] = (message, line)
            deadline = max(deadline, time.monotonic() + renewed)
    return answers
