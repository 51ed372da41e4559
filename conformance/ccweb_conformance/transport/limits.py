"""The runner's limits, which the servers it starts inherit or share: reaching them is the runner's environment.

Descriptors (RLIMIT_NOFILE): the servers the runner starts inherit its limit, so a run needs
:data:`DESCRIPTOR_FLOOR` for itself and them, checked (and the soft limit raised if it can be)
before anything starts (:func:`ensure_descriptors`). Below it, an HTTP server fits its connection
cap to the few descriptors it got and answers the runner's calls 503; the run then stops at once
with exit 2 instead. At or above it, a 503 or a refused connection is the server's own answer, and
judged as such; an EMFILE of the runner itself is the runner's (``errors.environment_problem``).

Processes (RLIMIT_NPROC)
RLIMIT_NPROC counts every process and thread of the user, the servers the runner starts
included. A server that cannot start a thread dies or stops answering; the runner then must
not blame the implementation. Two facts tell the runner's limit apart from a broken server:
a thread or process the runner itself could not start during the run (noted in the run context's
``exhausted``),
or the user's processes and threads within :data:`SPARE` of the limit when the server was lost.
Root's processes are not limited, and no limit means nothing to check.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
from collections.abc import Callable, Sequence
from pathlib import Path

from ccweb_conformance.errors import NOT_THE_IMPLEMENTATION, EnvironmentFault, NoProcessLeft

__all__ = [
    "DESCRIPTOR_FLOOR",
    "SPARE",
    "check_thread_headroom",
    "ensure_descriptors",
    "no_thread_or_process",
    "process_limit_problem",
    "tasks_of_user",
    "workers_allowed",
]

SPARE = 8
"""Processes and threads that must remain below the limit: fewer, and the next thread may not start."""
_CHAIN_LIMIT = 10


def _limit() -> int | None:
    """The soft RLIMIT_NPROC that applies to this user, or None when nothing limits it (no limit, or root)."""
    limit, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if limit == resource.RLIM_INFINITY or os.getuid() == 0:
        return None
    return limit


def _system_tasks() -> int | None:
    """Every thread of the machine (``/proc/loadavg``): an upper bound of the user's, read at once."""
    try:
        return int(Path("/proc/loadavg").read_text(encoding="ascii").split()[3].split("/")[1])
    except (OSError, IndexError, ValueError):
        return None


def tasks_of_user(uid: int) -> int:
    """The threads of every process whose real user is ``uid`` (what RLIMIT_NPROC counts), from ``/proc``."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text(encoding="ascii", errors="replace")
        except OSError:  # ended meanwhile
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += int(fields.get("Threads", "1").strip() or 1)
    return count


def _in_use(limit: int, spare: int) -> int | None:
    """The user's processes and threads when fewer than ``spare`` remain below ``limit``, else None."""
    system = _system_tasks()
    if (system is not None and system + spare <= limit) or not Path("/proc/self/status").exists():
        return None  # the whole machine is under it (no need to count), or there is no /proc to count in
    used = tasks_of_user(os.getuid())
    return used if used + spare > limit else None


def check_thread_headroom(spare: int, what: str) -> None:
    """Raise RuntimeError ("can't start new thread") when fewer than ``spare`` threads may still be started.

    For code that aborts the process instead of raising when its thread cannot start (a Rust
    extension): checked first, the limit is the environment fault it is.
    """
    limit = _limit()
    if limit is not None and (used := _in_use(limit, spare)) is not None:
        raise RuntimeError(
            f"can't start new thread: {used} of the {limit} processes and threads the user may have are running, "
            f"{what} needs {spare} more"
        )


ONE_LANE_TASKS = 256
"""Processes and threads of the user a run of one lane may hold at its peak: the runner's threads, its servers
(one per source binding and era) and theirs; against the bundled reference about 220."""
LANE_TASKS = 32
"""What each lane beyond the first adds at the run's peak: its thread, its servers and theirs (about 28 against
the bundled reference)."""


def workers_allowed(wanted: int) -> int:
    """How many of ``wanted`` lanes fit below the user's process limit, :data:`SPARE` kept free (at least one): a
    run whose lanes would not fit runs one after another, as ``--jobs 1`` does, rather than stop at the limit."""
    limit = _limit()
    needed = SPARE + ONE_LANE_TASKS + (wanted - 1) * LANE_TASKS
    system = _system_tasks()
    if limit is None or (system is not None and system + needed <= limit):
        return wanted
    free = limit - SPARE - tasks_of_user(os.getuid())
    return max(1, min(wanted, 1 + (free - ONE_LANE_TASKS) // LANE_TASKS))


def no_thread_or_process(error: BaseException) -> bool:
    """Whether ``error`` says a thread or process could not be started (RLIMIT_NPROC, memory)."""
    if isinstance(error, RuntimeError):
        return "can't start new thread" in str(error)
    return isinstance(error, NoProcessLeft) or (isinstance(error, OSError) and error.errno == errno.ENOMEM)


_SERVER_SAYS = ("can't start new thread", "resource temporarily unavailable", "pthread_create", "cannot fork")


def _no_thread_said(text: str) -> bool:
    """Whether lower-cased ``text`` says a thread or process could not be started."""
    return any(words in text for words in _SERVER_SAYS)


def process_limit_problem(
    error: BaseException | None, servers_said: Callable[[], str] | None = None, exhausted: Sequence[str] = ()
) -> str | None:
    """One line when a server was lost, or answered wrongly, while the user's process limit was reached, else None.

    Reached means: the runner itself could not start a thread or process during the run (``exhausted``: what
    the run noted), the server said it could not (in its answer, or in its stderr: ``servers_said``, read only
    when a limit applies), or the user's processes and threads, the user's other work included, are within
    :data:`SPARE` of the limit now. A server that cannot start a thread answers an internal error
    (MCP's -32603) or an error result, or dies: none of that is the implementation's fault.
    """
    limit = _limit()
    if limit is None:
        return None
    said, seen = "", 0
    while error is not None and seen < _CHAIN_LIMIT:  # the lost server's last words travel in the error's text
        said += str(error).lower() + "\n"
        error, seen = error.__cause__ or error.__context__, seen + 1
    if exhausted:
        detail = f"the runner could not start a thread: {exhausted[0]}"
    elif _no_thread_said(said) or (servers_said is not None and _no_thread_said(servers_said().lower())):
        detail = "the server could not start a thread"
    elif (used := _in_use(limit, SPARE)) is not None:
        detail = f"{used} in use"
    else:
        return None
    return (
        f"the runner and the servers it started reached the process limit ({limit} processes and threads, "
        f"ulimit -u; {detail}); {NOT_THE_IMPLEMENTATION}: raise the process limit (ulimit -u) or free memory"
    )


DESCRIPTOR_FLOOR = 256
"""File descriptors a run needs for the runner and the servers it starts (which inherit its limit). Measured
on a default run: the runner held at most 114 over stdio (about 30 servers' pipes), 59 over HTTP, where the
reference held 44 and keeps 64 in reserve beside its connections. macOS starts shells at 256."""


def ensure_descriptors(floor: int = DESCRIPTOR_FLOOR) -> None:
    """Raise the soft RLIMIT_NOFILE to ``floor`` when it is lower and the hard limit allows; else EnvironmentFault."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= floor:
        return
    if hard == resource.RLIM_INFINITY or hard >= floor:
        with contextlib.suppress(ValueError, OSError):  # refused: the fault below
            resource.setrlimit(resource.RLIMIT_NOFILE, (floor, hard))
            return
    raise EnvironmentFault(
        f"the runner's file-descriptor limit is {soft} (ulimit -n), below the {floor} a run needs for the runner "
        f"and the servers it starts, which inherit it; {NOT_THE_IMPLEMENTATION}: raise the limit (ulimit -n {floor} "
        "or more)"
    )
