"""A fork server for the stdio reference: the SDK is imported once, every server is a fork of it.

Starting the stdio reference costs about a second of CPU, nearly all of it importing the
MCP SDK (its low-level server module imports Starlette, uvicorn and both revisions of its
types). A conformance run needs one server process per source binding, because the stdio
source is read from the environment at process start. This module pays the imports once:
``python -m ccweb_reference.zygote --control-fd N`` imports everything a stdio server
needs, then forks one child per request. Each child is a whole, separate process that
becomes its own session leader, takes the three descriptors it was sent as its stdin,
stdout and stderr, takes the environment and arguments it was sent, and runs
:func:`ccweb_reference.cli.main` exactly as ``ccweb-reference`` would.

The control channel is a ``SOCK_SEQPACKET`` Unix socket (Linux), one JSON object per
packet, descriptors passed with ``SCM_RIGHTS``:

* the zygote sends ``{"ready": pid}`` once its imports are done;
* ``{"op": "spawn", "argv": [...], "env": {...}, "cwd": "..."}`` with three descriptors
  is answered ``{"spawned": pid}`` (or ``{"error": "..."}``);
* when a child exits the zygote sends ``{"exited": pid, "code": N}`` (``-N`` for a signal)
  and keeps the child a zombie, so its process ID (and group ID) is not reused, until it
  receives ``{"op": "release", "pid": pid}``: the runner's handle behaves like ``Popen``;
* when the channel closes (the runner is gone, or done), every child's process group is
  killed, the children are reaped and the zygote exits.

The zygote never starts a thread, so forking it is safe.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import signal
import socket
import sys
import traceback
from typing import Any

import ccweb_reference.cli as reference_cli  # the stdio server and everything it imports
from ccweb_reference import sdk

MAX_PACKET = 1 << 20
"""Bytes one control message may have (an environment of a few hundred variables fits easily)."""

__all__ = ["main", "reference_cli"]


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode("utf-8"))


def _run_child(
    request: dict[str, Any], fds: list[int], control: socket.socket, inherited: tuple[int, ...], settled: int
) -> None:
    """In the forked child: become the server the request asks for. Never returns.

    It becomes a session leader first, then closes ``settled``: the zygote answers the spawn
    request only then, so the runner may signal the child's process group at once.
    """
    code = 1
    try:
        os.setsid()
        os.close(settled)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in {*fds, control.fileno(), *inherited} - {0, 1, 2}:
            with contextlib.suppress(OSError):
                os.close(fd)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.set_wakeup_fd(-1)
        gc.unfreeze()
        os.environ.clear()
        os.environ.update(request["env"])
        if request.get("cwd"):
            os.chdir(request["cwd"])
        sys.argv = list(request["argv"])
        code = reference_cli.main(sys.argv[1:])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # a crash is reported as a crashing process would
        with contextlib.suppress(Exception):
            traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(code)


def _exit_code(status: os.waitid_result) -> int:
    return status.si_status if status.si_code == os.CLD_EXITED else -status.si_status


class _Children:
    """The zygote's children: those running, and the exited ones kept as zombies until released."""

    def __init__(self, control: socket.socket) -> None:
        self.control = control
        self.running: set[int] = set()
        self.reported: set[int] = set()

    def report_exits(self) -> None:
        for pid in list(self.running):
            try:
                status = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                status = None
                self.running.discard(pid)
                continue
            if status is None:
                continue
            self.running.discard(pid)
            self.reported.add(pid)
            with contextlib.suppress(OSError):
                _send(self.control, {"exited": pid, "code": _exit_code(status)})

    def release(self, pid: int) -> None:
        if pid in self.reported:
            self.reported.discard(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def end_all(self) -> None:
        for pid in self.running | self.reported:
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
        for pid in self.running | self.reported:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _end(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _spawn(
    request: dict[str, Any], fds: list[int], control: socket.socket, children: _Children, wake: tuple[int, int]
) -> None:
    """Fork the child the request asks for and answer its pid; a fork that fails is answered with its errno.

    Out of processes (RLIMIT_NPROC: EAGAIN) or memory, the fork server keeps serving: had the error
    ended it, its children (every running server of the run) would have been killed with it.
    """
    try:
        settled_read, settled_write = os.pipe()
    except OSError as error:
        _send(control, {"error": f"cannot fork: {error}", "errno": error.errno})
        return
    try:
        pid = os.fork()
    except OSError as error:
        os.close(settled_read)
        os.close(settled_write)
        _send(control, {"error": f"cannot fork: {error}", "errno": error.errno})
        return
    if pid == 0:
        _run_child(request, fds, control, (*wake, settled_read), settled_write)
    os.close(settled_write)
    os.read(settled_read, 1)  # end of file once the child has its own session (or died)
    os.close(settled_read)
    children.running.add(pid)
    _send(control, {"spawned": pid})


def serve(control: socket.socket) -> None:
    """Answer spawn and release requests until the control channel closes."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    os.set_blocking(wake_read, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, _end)  # stopped like any server: its children go with it
    signal.signal(signal.SIGHUP, _end)
    children = _Children(control)
    sdk.build_deferred_models()  # once here, not in every child
    gc.collect()
    gc.freeze()  # objects imported so far stay out of collections: fewer pages copied in each child
    _send(control, {"ready": os.getpid()})
    import select  # noqa: PLC0415

    try:
        while True:
            readable, _, _ = select.select([control.fileno(), wake_read], [], [])
            if wake_read in readable:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_read, 512):
                        pass
                children.report_exits()
            if control.fileno() not in readable:
                continue
            data, fds, _flags, _address = socket.recv_fds(control, MAX_PACKET, 3)
            if not data:
                return
            request = json.loads(data)
            if request.get("op") == "release":
                children.release(int(request["pid"]))
            elif request.get("op") == "spawn" and len(fds) == 3:
                _spawn(request, fds, control, children, (wake_read, wake_write))
            else:
                _send(control, {"error": f"unknown request {str(request)[:200]!r}"})
            for fd in fds:
                os.close(fd)
            children.report_exits()
    finally:
        children.end_all()


def main(argv: list[str] | None = None) -> int:
    """``python -m ccweb_reference.zygote --control-fd N``."""
    parser = argparse.ArgumentParser(prog="ccweb-reference-zygote", description=__doc__.splitlines()[0])
    parser.add_argument("--control-fd", type=int, required=True, help="the inherited SOCK_SEQPACKET socket")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner decides when it ends: it closes the channel
    control = socket.socket(fileno=args.control_fd)
    try:
        serve(control)
    except (ConnectionError, BrokenPipeError):
        pass
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
